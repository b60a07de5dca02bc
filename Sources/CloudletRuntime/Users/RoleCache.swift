import Foundation
import Synchronization

/// The roles of one app's users as last resolved, each kept ``timeToLive`` at most: a request
/// resolves its user's roles from here when it can, from the store otherwise. Every write of
/// `_Role` (its fields, its `users` and `roles` relations, its deletion) empties it once the write
/// is done; a resolution that read the store before that never stores its answer after it (each
/// entry is stored under the generation it began in). Each app has its own (``AppContext``), keyed
/// by user id, so one app's roles never answer for another's users.
package final class RoleCache: Sendable {
    /// How long a resolved user's roles are kept: the longest a change made around the app's own
    /// writes (another node, the database edited by hand) takes to be seen.
    package static let timeToLive: Duration = .seconds(5)
    /// The most role names the cache holds, over all its users (a user without roles counts one):
    /// past it the cache starts again empty, so its memory stays bounded however many users call.
    package static let maximumNames = 50_000

    /// What a lookup found.
    enum Lookup: Sendable {
        /// The user's roles, resolved less than ``timeToLive`` ago.
        case cached([String])
        /// Nothing fresh: resolve, and store the answer with this generation.
        case missing(generation: UInt64)
    }

    private struct Entry {
        let roles: [String]
        let expiresAt: Date
        var weight: Int { max(1, roles.count) }
    }

    private struct State {
        var generation: UInt64 = 0
        var entries: [String: Entry] = [:]
        var weight = 0
    }

    private let state = Mutex(State())

    package init() {}

    /// The roles of `userId` if they were resolved less than ``timeToLive`` before `now`.
    func lookup(_ userId: String, now: Date) -> Lookup {
        state.withLock { state in
            guard let entry = state.entries[userId], entry.expiresAt > now else { return .missing(generation: state.generation) }
            return .cached(entry.roles)
        }
    }

    /// Keeps `roles` for `userId` from `now`, unless the cache was emptied since `generation` began.
    func store(_ roles: [String], for userId: String, generation: UInt64, now: Date) {
        state.withLock { state in
            guard state.generation == generation else { return }
            let entry = Entry(roles: roles, expiresAt: now.addingTimeInterval(Self.timeToLive.seconds))
            state.weight -= state.entries[userId]?.weight ?? 0
            if state.weight + entry.weight > Self.maximumNames {
                state.entries.removeAll()
                state.weight = 0
            }
            state.entries[userId] = entry
            state.weight += entry.weight
        }
    }

    /// Forgets every user's roles, and the answers of resolutions under way.
    package func invalidate() {
        state.withLock { state in
            state.generation &+= 1
            state.entries.removeAll()
            state.weight = 0
        }
    }
}
