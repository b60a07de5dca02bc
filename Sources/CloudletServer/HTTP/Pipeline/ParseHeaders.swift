import HTTPTypes

/// The `X-Parse-*` header fields.
enum ParseHeaders {
    static let applicationId = HTTPField.Name("X-Parse-Application-Id")!
    static let masterKey = HTTPField.Name("X-Parse-Master-Key")!
    static let clientKeys = ["X-Parse-REST-API-Key", "X-Parse-Client-Key", "X-Parse-Javascript-Key"].compactMap { HTTPField.Name($0) }
    static let sessionToken = HTTPField.Name("X-Parse-Session-Token")!
    static let installationId = HTTPField.Name("X-Parse-Installation-Id")!
    static let forwardedFor = HTTPField.Name("X-Forwarded-For")!
}
