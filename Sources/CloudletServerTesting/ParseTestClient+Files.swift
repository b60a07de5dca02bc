import Cloudlet
import Foundation
import HTTPTypes
import NIOCore

extension ParseTestClient {
    /// A reply whose body is bytes, not JSON: a file's download.
    public struct Download: Sendable {
        public let status: Int
        public let headers: HTTPFields
        public let bytes: [UInt8]
    }

    /// `POST /files/<name>` with `bytes` as the raw body and `contentType` (none when nil), with
    /// the client key (or the master key) and, if given, a session.
    public func upload(
        _ name: String, _ bytes: [UInt8], contentType: String? = "application/octet-stream", master: Bool = false,
        sessionToken: String? = nil
    ) async throws -> Reply {
        var headers: HTTPFields = [HTTPField.Name("X-Parse-Application-Id")!: appId]
        headers[HTTPField.Name(master ? "X-Parse-Master-Key" : "X-Parse-REST-API-Key")!] = master ? masterKey : clientKey
        if let contentType { headers[.contentType] = contentType }
        if let sessionToken { headers[HTTPField.Name("X-Parse-Session-Token")!] = sessionToken }
        return try await raw(.post, "/files/\(name)", headers: headers, body: ByteBuffer(bytes: bytes))
    }

    /// `GET` of a file's `url` (as an upload answered it, or a path from the server's root), with
    /// no keys — as a browser or an image view fetches it — and `headers` (such as `Range`).
    public func download(_ url: String, headers: HTTPFields = [:]) async throws -> Download {
        var path = Substring(url)
        if let scheme = path.range(of: "://") {
            path = path[scheme.upperBound...]
            path = path[(path.firstIndex(of: "/") ?? path.endIndex)...]
        }
        let (status, responseHeaders, body) = try await transport(.get, String(path), headers, nil)
        return Download(status: status, headers: responseHeaders, bytes: Array(body.readableBytesView))
    }
}
