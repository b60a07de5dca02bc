import Cloudlet
import HTTPTypes
import Hummingbird

/// Every ``ParseError`` answers as Parse does: `{"code": N, "error": "message"}` with a fitting status.
extension ParseError: HTTPResponseError {
    public var status: HTTPResponse.Status {
        if let httpStatus { return HTTPResponse.Status(code: httpStatus) }
        switch code {
        case 1: return .internalServerError
        case 101: return .notFound
        case 116: return .contentTooLarge
        case 119: return .forbidden
        case 124: return .gatewayTimeout
        case 155: return .tooManyRequests
        case 209: return .badRequest
        default: return .badRequest
        }
    }

    public func response(from request: Request, context: some RequestContext) throws -> Response {
        JSONResponse.make(status: status, body: body)
    }

    /// The error's JSON body.
    var body: ParseValue {
        ["code": .number(Double(code)), "error": .string(message)]
    }
}

/// Builds JSON responses from Parse values.
enum JSONResponse {
    /// The content type of every JSON answer.
    static let contentType = "application/json; charset=utf-8"

    static func make(status: HTTPResponse.Status, body: ParseValue, headers: HTTPFields = [:]) -> Response {
        make(status: status, bytes: JSONWriter.bytes(body), headers: headers)
    }

    /// A response whose body is the JSON `bytes`.
    static func make(status: HTTPResponse.Status, bytes: [UInt8], headers: HTTPFields = [:]) -> Response {
        var fields = headers
        fields[.contentType] = contentType
        return Response(status: status, headers: fields, body: .init(byteBuffer: ByteBuffer(bytes: bytes)))
    }
}
