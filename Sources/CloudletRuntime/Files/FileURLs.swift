import Cloudlet
import Foundation
import NIOCore
import Synchronization

/// Where clients reach the server, which every file URL starts with: `--public-url` when it is
/// given, else the address the server listens on (`http://<host>:<port>`, the port it bound when
/// told port 0; `127.0.0.1` or `[::1]` for a wildcard host). Never a request's `Host` header,
/// which the client chooses.
public final class ServerOrigin: Sendable {
    private let origin: Mutex<String>
    /// The host the server was told to listen on; nil when it was given a public URL.
    private let host: String?

    /// The origin of a server told `publicURL`, else listening on `host` and `port`.
    public init(publicURL: String?, host: String, port: Int) {
        self.host = publicURL == nil ? host : nil
        origin = Mutex(publicURL.map { $0.hasSuffix("/") ? String($0.dropLast()) : $0 } ?? Self.origin(host: host, port: port))
    }

    /// The origin as it is now.
    public var value: String {
        origin.withLock { $0 }
    }

    /// Takes the port of the address the server now listens on (when it had no public URL).
    public func listening(on address: SocketAddress?) {
        guard let host, let port = address?.port else { return }
        origin.withLock { $0 = Self.origin(host: host, port: port) }
    }

    private static func origin(host: String, port: Int) -> String {
        let reachable =
            switch host {
            case "", "0.0.0.0": "127.0.0.1"
            case "::", "[::]": "[::1]"
            default: host.contains(":") && !host.hasPrefix("[") ? "[\(host)]" : host
            }
        return "http://\(reachable):\(port)"
    }
}

/// The URLs of one app's stored files, made from their names alone:
/// `<origin><mount>/files/<app>/<name>`. Every `File` value read back gets its URL from here,
/// whatever URL was stored with it.
public struct FileURLs: Sendable {
    package let origin: ServerOrigin
    /// `<mount>/files/<app>/`.
    package let path: String

    /// The URLs of app `appId`'s files on a server at `origin` with the API at `mountPath`.
    public init(origin: ServerOrigin, mountPath: String, appId: String) {
        self.origin = origin
        self.path = "\(mountPath)/files/\(appId)/"
    }

    /// The URL of the stored file `name`.
    public func url(_ name: String) -> String {
        origin.value + path + name.replacingOccurrences(of: " ", with: "%20")
    }

    /// `object` with each `File` value, at any depth, holding its name and the URL made from it
    /// (no URL with `urls` nil), and nothing else a client put in it.
    public static func presenting(_ object: ParseObject, with urls: FileURLs?) -> ParseObject {
        var object = object
        // Values without a `File` value are left as they are, not copied.
        for (key, value) in object.fields where value.holdsFile {
            object.fields[key] = value.withFileURLs(urls)
        }
        return object
    }
}

extension ParseValue {
    /// Whether a `File` value is in this value, at any depth.
    fileprivate var holdsFile: Bool {
        switch self {
        case .array(let elements): elements.contains { $0.holdsFile }
        case .object(let members): members["__type"] == "File" || members.values.contains { $0.holdsFile }
        default: false
        }
    }

    /// This value with each `File` value in it rebuilt from its name: see ``FileURLs/presenting(_:with:)``.
    func withFileURLs(_ urls: FileURLs?) -> ParseValue {
        switch self {
        case .array(let elements):
            return .array(elements.map { $0.holdsFile ? $0.withFileURLs(urls) : $0 })
        case .object(var members):
            if members["__type"] == "File", let name = members["name"]?.stringValue {
                var file: [String: ParseValue] = ["__type": "File", "name": .string(name)]
                file["url"] = FileName.isStoredName(name) ? urls.map { .string($0.url(name)) } : nil
                return .object(file)
            }
            for (key, member) in members where member.holdsFile { members[key] = member.withFileURLs(urls) }
            return .object(members)
        default:
            return self
        }
    }
}
