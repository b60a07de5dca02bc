import Cloudlet
import Foundation

/// One provider's signing keys by `kid`, as its key set URL last gave them, kept for the lifetime
/// that answer gave. A `kid` it lacks, or keys past their lifetime, send it to the URL again — but
/// at most once per ``refetchInterval``, whatever tokens ask for, so that a stream of forged key
/// ids costs the provider one request a minute. Callers that arrive during a fetch wait for it.
actor SigningKeyCache {
    /// The shortest time between two fetches.
    static let refetchInterval: TimeInterval = 60

    /// A key set as fetched: the keys and how long they may be used.
    struct Download: Sendable {
        var keys: [String: SigningKey]
        var lifetime: TimeInterval
    }

    private let download: @Sendable () async throws -> Download
    private let clock: any CloudletClock
    private let onFailure: @Sendable (any Error) -> Void
    private var keys: [String: SigningKey] = [:]
    private var expiresAt = Date.distantPast
    private var lastFetch: Date?
    private var fetching: Task<Void, Never>?

    /// A cache that fetches with `download`, judging lifetimes by `clock`, and reports each failed fetch to `onFailure`.
    init(
        clock: any CloudletClock, download: @escaping @Sendable () async throws -> Download,
        onFailure: @escaping @Sendable (any Error) -> Void
    ) {
        self.clock = clock
        self.download = download
        self.onFailure = onFailure
    }

    /// The key `kid`, fetching the key set first if it lacks the key or the keys have expired and
    /// no fetch was made in the last ``refetchInterval``; nil if there is no such key in date.
    func key(_ kid: String) async -> SigningKey? {
        if let key = current(kid) { return key }
        if let fetching {
            await fetching.value
        } else if lastFetch.map({ clock.now.timeIntervalSince($0) >= Self.refetchInterval }) ?? true {
            lastFetch = clock.now
            let task = Task { await self.refresh() }
            fetching = task
            await task.value
            fetching = nil
        }
        return current(kid)
    }

    private func current(_ kid: String) -> SigningKey? {
        clock.now < expiresAt ? keys[kid] : nil
    }

    private func refresh() async {
        do {
            let fetched = try await download()
            keys = fetched.keys
            expiresAt = clock.now.addingTimeInterval(fetched.lifetime)
        } catch {
            onFailure(error)
        }
    }
}
