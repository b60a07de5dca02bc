import Cloudlet
import Foundation
import Synchronization

/// The schemas of one app's classes as every read and write checks them, kept in memory after
/// their first read. A schema change through `/schemas` forgets the class, on the node that made it
/// at once and on the others when they hear of it (``StoreChange``); a schema read before a class
/// was forgotten is not kept after, and none is kept longer than ``maximumAge`` (how long a change
/// no one heard of, the database edited by hand, takes to be seen). A field the cached schema does
/// not know is read again before it is taken as new; a class that does not exist is not kept (its
/// first save makes it, in a transaction the cache does not see). At most ``maximumClasses``
/// classes are kept.
public final class ClassSchemaCache: Sendable {
    /// The most classes kept at once; past them the cache starts over.
    static let maximumClasses = 4096
    /// The longest a schema is kept without being read again from storage.
    static let maximumAge: TimeInterval = 60

    private struct State {
        /// Each existing class read, with when it must be read again.
        var schemas: [String: (schema: StoredClassSchema, freshUntil: Date)] = [:]
        /// Counts the times classes were forgotten: a read begun before one is not kept.
        var generation: UInt64 = 0
    }

    private let storage: any SchemaStorage
    private let clock: any CloudletClock
    private let state = Mutex(State())

    init(storage: any SchemaStorage, clock: any CloudletClock) {
        self.storage = storage
        self.clock = clock
    }

    /// The schema of `className`, nil when the class does not exist (a system class always does).
    func schema(of className: String) async throws -> StoredClassSchema? {
        let now = clock.now
        let (cached, generation) = state.withLock { state in
            (state.schemas[className].flatMap { $0.freshUntil > now ? $0.schema : nil }, state.generation)
        }
        if let cached { return cached }
        var loaded = try await storage.storedClass(className)
        if loaded == nil, SystemClass.named(className) != nil { loaded = StoredClassSchema(className: className) }
        guard let loaded else { return nil }
        state.withLock { state in
            guard state.generation == generation else { return }
            if state.schemas.count >= Self.maximumClasses { state.schemas.removeAll() }
            state.schemas[className] = (loaded, now.addingTimeInterval(Self.maximumAge))
        }
        return loaded
    }

    /// The schema of `className` read again from storage.
    func reloaded(_ className: String) async throws -> StoredClassSchema? {
        forget(className)
        return try await schema(of: className)
    }

    /// Forgets what was read of `className`, for the next check to read it again.
    func forget(_ className: String) {
        state.withLock { state in
            state.generation &+= 1
            state.schemas[className] = nil
        }
    }

    /// Forgets every class read.
    func forgetAll() {
        state.withLock { state in
            state.generation &+= 1
            state.schemas.removeAll()
        }
    }
}
