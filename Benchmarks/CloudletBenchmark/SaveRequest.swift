import LoadSupport
import NIOHTTP1

/// The saves this benchmark sends: the same ~200-byte JSON object to every server (the body of
/// `PocketBase/post_body.lua`), as app `bench` with its client key, which the Cloudlet servers
/// check and the others ignore.
enum SaveRequest {
    /// The class the objects are saved in on Cloudlet and the bare route.
    static let className = "X"
    /// The app id and client key every Cloudlet server under test accepts.
    static let appId = "bench"
    static let clientKey = "ck"
    /// The object saved, the body PocketBase's peer measurements send.
    static let body =
        #"{"text":"Hello from the load generator; this is a chat message body of moderate size, roughly like a real one typed by a person.","channel":"general","clientId":"c0ffee-1234-5678-9abc","kind":"chat"}"#
    /// The field every server's before-save hook sets, and the value it sets.
    static let hookField = "senderId"
    static let hookValue = "x"

    /// The save request to `path` on `host:port`.
    static func make(host: String, port: Int, path: String = "/parse/classes/\(className)") -> LoadRequest {
        LoadRequest(method: .POST, uri: path, host: host, port: port, appId: appId, clientKey: clientKey, bodies: [body])
    }
}
