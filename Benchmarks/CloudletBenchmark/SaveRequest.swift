import NIOCore
import NIOHTTP1

/// The requests the load generator sends: `POST /parse/classes/X` with the app's headers and a
/// JSON object of about 200 bytes. A few bodies that differ in their values are built once and
/// sent in turn, so that sending costs the generator no encoding.
struct SaveRequest: Sendable {
    /// The class the objects are saved in.
    static let className = "X"
    /// The app id and client key every server under test accepts.
    static let appId = "bench"
    static let clientKey = "ck"

    /// Request heads and bodies, used round-robin.
    let variants: [(head: HTTPRequestHead, body: ByteBuffer)]

    init(host: String, port: Int) {
        variants = (0..<64).map { number in
            let json = """
                {"title":"Benchmark object \(number): a modest title for a modest save",\
                "score":\(1000 + number * 37),"tags":["a","b"],\
                "author":"Load Generator","summary":"about two hundred bytes of JSON in all, give or take a few"}
                """
            var headers = HTTPHeaders()
            headers.add(name: "Host", value: "\(host):\(port)")
            headers.add(name: "X-Parse-Application-Id", value: Self.appId)
            headers.add(name: "X-Parse-REST-API-Key", value: Self.clientKey)
            headers.add(name: "Content-Type", value: "application/json")
            headers.add(name: "Content-Length", value: String(json.utf8.count))
            let head = HTTPRequestHead(version: .http1_1, method: .POST, uri: "/parse/classes/\(Self.className)", headers: headers)
            return (head, ByteBuffer(string: json))
        }
    }

    /// The size of the first body, for the report.
    var bodyBytes: Int { variants[0].body.readableBytes }
}
