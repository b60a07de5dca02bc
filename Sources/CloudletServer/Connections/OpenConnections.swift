import Synchronization

/// The server's open connections, counted in all and by client address, and the bounds a new one
/// must stay under (``ConnectionLimits``). Shared by every event loop; each check is one lock.
final class OpenConnections: Sendable {
    /// Why a connection was refused, as the `reason` label of `cloudlet_connections_refused_total`.
    enum Refusal: String, Sendable {
        /// The server's bound on connections in all.
        case total
        /// The bound on connections from one client address.
        case address
    }

    /// The most connections open at once.
    let maximum: Int
    /// The most connections open at once from one address (other than a trusted proxy's).
    let maximumPerAddress: Int
    private let trustedProxies: TrustedProxies
    private let state = Mutex(State())

    private struct State {
        var total = 0
        var byAddress: [String: Int] = [:]
    }

    init(maximum: Int, maximumPerAddress: Int, trustedProxies: TrustedProxies) {
        self.maximum = maximum
        self.maximumPerAddress = maximumPerAddress
        self.trustedProxies = trustedProxies
    }

    /// The connections open now.
    var count: Int { state.withLock { $0.total } }

    /// Counts a new connection from `address` (nil when unknown), or answers why it is refused
    /// (then it is not counted). A connection counted must be given back with ``close(from:)``.
    func open(from address: String?) -> Refusal? {
        let key = boundKey(of: address)
        return state.withLock { state in
            guard state.total < maximum else { return .total }
            if let key {
                guard state.byAddress[key, default: 0] < maximumPerAddress else { return .address }
                state.byAddress[key, default: 0] += 1
            }
            state.total += 1
            return nil
        }
    }

    /// Gives back a connection from `address` counted by ``open(from:)``.
    func close(from address: String?) {
        let key = boundKey(of: address)
        state.withLock { state in
            state.total -= 1
            if let key {
                let left = state.byAddress[key, default: 1] - 1
                state.byAddress[key] = left > 0 ? left : nil
            }
        }
    }

    /// What the bound by address counts connections under: an IPv4 address (IPv4-mapped IPv6
    /// addresses as IPv4), or an IPv6 address's /64 network, since one client is commonly given a
    /// whole /64; nil for a trusted proxy or an unknown address, which only the total bounds.
    private func boundKey(of address: String?) -> String? {
        guard let address, !trustedProxies.trusts(address), let bytes = Network.bytes(of: address) else { return nil }
        if bytes.count == 16, bytes[..<10].allSatisfy({ $0 == 0 }), bytes[10] == 0xFF, bytes[11] == 0xFF {
            return bytes[12...].map(String.init).joined(separator: ".")
        }
        return bytes.count == 4 ? address : bytes.prefix(8).map { String($0, radix: 16) }.joined(separator: ":") + "/64"
    }
}
