import LoadSupport

/// The saves this benchmark sends: `POST /parse/classes/X` as app `bench`, whose id and client
/// key every server under test accepts.
enum SaveRequest {
    /// The class the objects are saved in.
    static let className = "X"
    /// The app id and client key every server under test accepts.
    static let appId = "bench"
    static let clientKey = "ck"

    /// The save request to `host:port`.
    static func make(host: String, port: Int) -> LoadRequest {
        LoadRequest.save(host: host, port: port, appId: appId, clientKey: clientKey, className: className)
    }
}
