import Cloudlet
import Foundation
import Glibc

/// The proxies whose `X-Forwarded-For` the server believes, as addresses (`10.0.0.5`, `::1`) or
/// networks (`10.0.0.0/8`, `fd00::/8`).
///
/// A client's address is the socket's peer, unless that peer is a trusted proxy: then it is the
/// last address in `X-Forwarded-For` that is not a trusted proxy itself (the header's earlier
/// entries are whatever the client chose to send). With no trusted proxies the header is ignored.
///
/// ```swift
/// let proxies = try TrustedProxies(["10.0.0.0/8"])
/// proxies.clientAddress(peer: "10.0.0.7", forwardedFor: ["203.0.113.9, 10.0.0.3"])  // "203.0.113.9"
/// ```
public struct TrustedProxies: Sendable {
    private let networks: [Network]

    /// No trusted proxies: the socket's peer is the client.
    public static let none = TrustedProxies(networks: [])

    /// Trusts `entries`, each an IPv4 or IPv6 address with an optional `/prefix`. Throws for one
    /// that is neither.
    public init(_ entries: [String]) throws {
        networks = try entries.map { entry in
            guard let network = Network(entry) else {
                throw ParseError(code: 1, message: "trusted proxy \(entry) is not an IP address or network")
            }
            return network
        }
    }

    private init(networks: [Network]) { self.networks = networks }

    /// Whether `address` is one of the trusted proxies.
    public func trusts(_ address: String) -> Bool {
        guard !networks.isEmpty, let bytes = Network.bytes(of: address) else { return false }
        return networks.contains { $0.contains(bytes) }
    }

    /// The client's address for a request from `peer` with these `X-Forwarded-For` header values
    /// (read only when `peer` is a trusted proxy).
    public func clientAddress(peer: String?, forwardedFor: @autoclosure () -> [String]) -> String? {
        guard let peer, trusts(peer) else { return peer }
        let hops = forwardedFor().flatMap { $0.split(separator: ",") }.map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
        var client = peer
        for hop in hops.reversed() {
            guard Network.bytes(of: hop) != nil else { return client }
            client = hop
            if !trusts(hop) { return hop }
        }
        return client
    }
}

/// An IP network: address bytes and how many leading bits of them count.
struct Network: Sendable {
    let bytes: [UInt8]
    let prefixLength: Int

    init?(_ text: String) {
        let parts = text.split(separator: "/", maxSplits: 1).map(String.init)
        guard let bytes = Self.bytes(of: parts[0]) else { return nil }
        let length = parts.count == 2 ? Int(parts[1]) : bytes.count * 8
        guard let length, (0...bytes.count * 8).contains(length) else { return nil }
        self.bytes = bytes
        self.prefixLength = length
    }

    func contains(_ address: [UInt8]) -> Bool {
        guard address.count == bytes.count else { return false }
        let whole = prefixLength / 8
        guard address[..<whole] == bytes[..<whole] else { return false }
        let rest = prefixLength % 8
        guard rest > 0 else { return true }
        let mask = UInt8(0xFF) << (8 - rest)
        return address[whole] & mask == bytes[whole] & mask
    }

    /// The 4 or 16 bytes of an IPv4 or IPv6 address in text, or nil.
    static func bytes(of text: String) -> [UInt8]? {
        var bytes = [UInt8](repeating: 0, count: 16)
        if inet_pton(AF_INET, text, &bytes) == 1 { return Array(bytes.prefix(4)) }
        if inet_pton(AF_INET6, text, &bytes) == 1 { return bytes }
        return nil
    }
}
