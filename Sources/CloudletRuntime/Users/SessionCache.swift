import Foundation
import Synchronization

/// What a request's session token stands for, as ``SessionCache`` keeps it: the session's user,
/// installation and expiry, and the user's roles (``UserRoles``).
package struct CachedSession: Sendable, Hashable {
    /// The session's user.
    package let userId: String
    /// The installation that made the session, if it said.
    package let installationId: String?
    /// When the session stops being valid.
    package let expiresAt: Date
    /// The user's roles, inherited ones included, sorted.
    package let roles: [String]

    /// About how many bytes the entry of `tokenHash` holds: what ``SessionCache/maximumBytes`` counts.
    func weight(_ tokenHash: String) -> Int {
        SessionCache.entryOverhead + tokenHash.utf8.count + userId.utf8.count + (installationId?.utf8.count ?? 0)
            + roles.reduce(0) { $0 + SessionCache.stringOverhead + $1.utf8.count }
    }
}

/// One app's sessions as last resolved, by the SHA-256 of their token: a request whose session is
/// here reads neither its session nor its user's roles from the store. Each app has its own
/// (``AppContext/sessionCache``), so one app's callers never fill or empty another's.
///
/// Exact for what the server writes: every write that ends a session or changes a role calls
/// ``invalidate(_:)`` once it is done (the one way in), on the node that made it, and on every
/// other node sharing the stores when it hears of the write's commit (``StoreChanges``); a resolution that read the store before an invalidation never stores its answer
/// after it (each answer is stored under the generation its lookup began in). An entry is never
/// answered past its session's expiry, nor kept longer than ``maximumAge`` (how long a change made
/// around the server, the database edited by hand, takes to be seen).
///
/// Bounded: only sessions the store found valid are stored (an unknown token stores nothing, so a
/// flood of made-up tokens neither grows the cache nor pushes anyone out), at most
/// ``maximumEntries`` of them and ``maximumBytes`` in all; past either, the entries stored first go.
package final class SessionCache: Sendable {
    /// The most sessions one app's cache holds.
    package static let maximumEntries = 10_000
    /// The most bytes (as ``CachedSession`` weighs them) one app's cache holds.
    package static let maximumBytes = 4 << 20
    /// The longest an entry is kept without being read again from the store.
    package static let maximumAge: Duration = .seconds(60)
    /// What an entry costs beyond its strings: its dictionary slot, dates and queue place.
    static let entryOverhead = 160
    /// What each role name costs beyond its bytes.
    static let stringOverhead = 16

    /// What changed in the store, and so which entries go.
    package enum Invalidation: Sendable, Hashable {
        /// The session of this token hash ended (a logout, a deleted session).
        case session(tokenHash: String)
        /// Some or all of the user's sessions ended (a password change or reset, the user
        /// deleted, a login from an installation that had a session).
        case user(id: String)
        /// A role or its members changed (any write of `_Role`), or sessions ended wholesale (a
        /// purge of `_User`): every entry goes.
        case everyone
    }

    /// What a lookup found.
    package enum Lookup: Sendable {
        /// The session, valid at the time of the lookup.
        case cached(CachedSession)
        /// Nothing usable: resolve from the store, and store the answer with this generation.
        case missing(generation: UInt64)
    }

    private struct Entry {
        let session: CachedSession
        /// When the entry must be read from the store again (at the session's expiry at the latest).
        let freshUntil: Date
        /// Its place in the order of arrival.
        let arrival: UInt64
        let weight: Int
    }

    private struct State {
        var generation: UInt64 = 0
        var entries: [String: Entry] = [:]
        var tokensByUser: [String: Set<String>] = [:]
        /// Token hashes in the order they were stored, from `head` on; a place whose entry was
        /// replaced or removed since is skipped.
        var arrivals: [(tokenHash: String, arrival: UInt64)] = []
        var head = 0
        var nextArrival: UInt64 = 0
        var bytes = 0

        mutating func remove(_ tokenHash: String) {
            guard let entry = entries.removeValue(forKey: tokenHash) else { return }
            bytes -= entry.weight
            tokensByUser[entry.session.userId]?.remove(tokenHash)
            if tokensByUser[entry.session.userId]?.isEmpty == true { tokensByUser[entry.session.userId] = nil }
        }

        /// Removes the entry stored first; false if there is none.
        mutating func evictOldest() -> Bool {
            while head < arrivals.count {
                let (tokenHash, arrival) = arrivals[head]
                head += 1
                if entries[tokenHash]?.arrival == arrival {
                    remove(tokenHash)
                    return true
                }
            }
            return false
        }

        /// Drops the places already passed or left behind by removed entries once they outnumber
        /// the entries, so the queue stays within twice the bound.
        mutating func compactArrivals() {
            guard arrivals.count - head > 2 * max(entries.count, 64) || head > arrivals.count / 2 + 64 else { return }
            arrivals = arrivals[head...].filter { entries[$0.tokenHash]?.arrival == $0.arrival }
            head = 0
        }
    }

    private let state = Mutex(State())

    package init() {}

    /// The session of `tokenHash` if it is here, fresh and not expired at `now`.
    package func lookup(_ tokenHash: String, now: Date) -> Lookup {
        state.withLock { state in
            guard let entry = state.entries[tokenHash] else { return .missing(generation: state.generation) }
            guard entry.freshUntil > now else {
                state.remove(tokenHash)
                return .missing(generation: state.generation)
            }
            return .cached(entry.session)
        }
    }

    /// Keeps `session` for `tokenHash` from `now`, unless an invalidation came since `generation`
    /// began or the session has expired; the entries stored first make room for it.
    package func store(_ session: CachedSession, for tokenHash: String, generation: UInt64, now: Date) {
        let weight = session.weight(tokenHash)
        guard weight <= Self.maximumBytes, session.expiresAt > now else { return }
        state.withLock { state in
            guard state.generation == generation else { return }
            state.remove(tokenHash)
            while state.entries.count >= Self.maximumEntries || state.bytes + weight > Self.maximumBytes {
                guard state.evictOldest() else { break }
            }
            let freshUntil = min(session.expiresAt, now.addingTimeInterval(Self.maximumAge.seconds))
            state.entries[tokenHash] = Entry(session: session, freshUntil: freshUntil, arrival: state.nextArrival, weight: weight)
            state.arrivals.append((tokenHash, state.nextArrival))
            state.nextArrival &+= 1
            state.bytes += weight
            state.tokensByUser[session.userId, default: []].insert(tokenHash)
            state.compactArrivals()
        }
    }

    /// Forgets what `change` made stale, and the answers of resolutions under way. The one way
    /// entries leave the cache for a change in the store.
    package func invalidate(_ change: Invalidation) {
        state.withLock { state in
            state.generation &+= 1
            switch change {
            case .session(let tokenHash):
                state.remove(tokenHash)
            case .user(let id):
                for tokenHash in state.tokensByUser[id] ?? [] { state.remove(tokenHash) }
            case .everyone:
                state = State(generation: state.generation)
            }
            state.compactArrivals()
        }
    }

    /// How many sessions and bytes the cache holds.
    package var size: (entries: Int, bytes: Int) {
        state.withLock { ($0.entries.count, $0.bytes) }
    }
}
