import Cloudlet

/// Where an app's class schemas live: each class's field types (recorded by the first write of
/// each field, or declared), its class-level permissions and its indexes. A class exists once an
/// object of it was stored or it was created through `/schemas`.
public protocol SchemaStorage: Sendable {
    /// The schemas of the classes that exist, in name order, at most `limit`.
    func storedClasses(limit: Int) async throws -> [StoredClassSchema]

    /// The schema of `className`, or nil if it does not exist.
    func storedClass(_ className: String) async throws -> StoredClassSchema?

    /// Creates `schema`'s class; 103 "Class X already exists." if it does.
    func createClass(_ schema: StoredClassSchema) async throws

    /// Applies `change` to the existing class `className` in one transaction: a deleted field
    /// leaves every object (and a relation field its join rows).
    func updateClass(_ className: String, _ change: SchemaChange) async throws

    /// Drops the class `className` with its fields, CLPs and indexes; 255 if it holds objects.
    func deleteClass(_ className: String) async throws

    /// Deletes every object of `className` and the join rows that relate them; the schema stays.
    func purge(_ className: String) async throws
}

/// What `PUT /schemas/:className` changes, checked against the class's schema before storage applies it.
public struct SchemaChange: Sendable {
    /// New fields and their types.
    public var addedFields: [String: ParseFieldType] = [:]
    /// Fields deleted, with their types (a relation's join rows go too).
    public var deletedFields: [String: ParseFieldType] = [:]
    /// The new CLPs, if they change.
    public var permissions: ClassLevelPermissions?
    /// New indexes, by name.
    public var addedIndexes: [String: [StoredClassSchema.IndexKey]] = [:]
    /// Names of indexes deleted.
    public var deletedIndexes: Set<String> = []

    public init() {}
}
