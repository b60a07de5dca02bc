import Cloudlet
import HTTPTypes

/// The hosting operator's key: it opens the admin API, `/metrics` and the hook logs, and is never
/// an app's key. Held only as its SHA-256; a presented key is compared in constant time.
///
/// Sent as `X-Cloudlet-Operator-Key: <key>` or `Authorization: Bearer <key>` (as Prometheus sends it).
public struct OperatorKey: Sendable, Hashable {
    /// The SHA-256 of the key.
    public let hash: [UInt8]

    /// The operator key `key`.
    public init(_ key: String) {
        hash = AppKeys.hash(key)
    }

    /// An operator key held as its SHA-256 (as the host database keeps it).
    public init(hash: [UInt8]) {
        self.hash = hash
    }

    /// Whether `presented` is this key.
    public func matches(_ presented: String) -> Bool {
        AppKeys.matches(AppKeys.hash(presented), hash)
    }

    static let header = HTTPField.Name("X-Cloudlet-Operator-Key")!

    /// Throws 401 (code 119) unless `headers` carry this key.
    public func check(_ headers: HTTPFields) throws {
        var presented = headers[Self.header]
        if presented == nil, let authorization = headers[.authorization], authorization.hasPrefix("Bearer ") {
            presented = String(authorization.dropFirst("Bearer ".count))
        }
        guard let presented, matches(presented) else {
            throw ParseError(code: 119, message: "unauthorized: this needs the operator key", httpStatus: 401)
        }
    }
}

extension OperatorKey {
    /// Throws 401 (code 119) unless `headers` carry `key`; with no key configured, refuses everyone.
    static func require(_ key: OperatorKey?, in headers: HTTPFields) throws {
        guard let key else { throw ParseError(code: 119, message: "unauthorized: no operator key is configured", httpStatus: 401) }
        try key.check(headers)
    }
}
