import NIOCore
import NIOHTTP1

/// What a load generator sends: one method and URI with an app's Parse headers, and a few JSON
/// bodies built once and sent in turn, so that sending costs the generator no encoding.
public struct LoadRequest: Sendable {
    /// Request heads and bodies, used round-robin.
    public let variants: [(head: HTTPRequestHead, body: ByteBuffer)]

    /// `method uri` to `host:port` as app `appId` with `clientKey`, with each of `bodies` in turn.
    public init(method: HTTPMethod, uri: String, host: String, port: Int, appId: String, clientKey: String, bodies: [String]) {
        variants = bodies.map { json in
            var headers = HTTPHeaders()
            headers.add(name: "Host", value: "\(host):\(port)")
            headers.add(name: "X-Parse-Application-Id", value: appId)
            headers.add(name: "X-Parse-REST-API-Key", value: clientKey)
            headers.add(name: "Content-Type", value: "application/json")
            headers.add(name: "Content-Length", value: String(json.utf8.count))
            return (HTTPRequestHead(version: .http1_1, method: method, uri: uri, headers: headers), ByteBuffer(string: json))
        }
    }

    /// Saves of about 200-byte objects to `/parse/classes/<className>`, 64 bodies that differ in their values.
    public static func save(host: String, port: Int, appId: String, clientKey: String, className: String) -> LoadRequest {
        LoadRequest(
            method: .POST, uri: "/parse/classes/\(className)", host: host, port: port, appId: appId, clientKey: clientKey,
            bodies: (0..<64).map { number in
                """
                {"title":"Benchmark object \(number): a modest title for a modest save",\
                "score":\(1000 + number * 37),"tags":["a","b"],\
                "author":"Load Generator","summary":"about two hundred bytes of JSON in all, give or take a few"}
                """
            })
    }

    /// The size of the first body, for reports.
    public var bodyBytes: Int { variants[0].body.readableBytes }
}
