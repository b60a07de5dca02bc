import Cloudlet
import Synchronization

/// The schemas of one app's classes as every read and write checks them, kept in memory after
/// their first read. A schema change through `/schemas` forgets the class; a field the cached
/// schema does not know is read again before it is taken as new; a class that does not exist is
/// not kept (its first save makes it, in a transaction the cache does not see). At most
/// ``maximumClasses`` classes are kept.
public final class ClassSchemaCache: Sendable {
    /// The most classes kept at once; past them the cache starts over.
    static let maximumClasses = 4096

    private let storage: any SchemaStorage
    /// Each existing class read.
    private let schemas = Mutex<[String: StoredClassSchema]>([:])

    init(storage: any SchemaStorage) {
        self.storage = storage
    }

    /// The schema of `className`, nil when the class does not exist (a system class always does).
    func schema(of className: String) async throws -> StoredClassSchema? {
        if let cached = schemas.withLock({ $0[className] }) { return cached }
        var loaded = try await storage.storedClass(className)
        if loaded == nil, SystemClass.named(className) != nil { loaded = StoredClassSchema(className: className) }
        guard let loaded else { return nil }
        schemas.withLock { cache in
            if cache.count >= Self.maximumClasses { cache.removeAll() }
            cache[className] = loaded
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
        _ = schemas.withLock { $0.removeValue(forKey: className) }
    }
}
