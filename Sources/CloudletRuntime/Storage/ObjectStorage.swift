import Cloudlet
import Foundation

/// Where an app's objects live. The request path and the hooks see only this protocol, so that a
/// PostgreSQL store can later serve several Cloudlet nodes without changing either.
///
/// Writes apply field operations to the stored values and check the schema inside one transaction,
/// and queue the after hook they owe (its ``OutboxEvent``, a row of the ``WorkQueue``) in that same
/// transaction.
public protocol ObjectStorage: Sendable {
    /// The URLs every `File` value this storage reads back gets, from its name (whatever URL was
    /// stored with it); nil for `File` values without a URL.
    var fileURLs: FileURLs? { get }

    /// The object `id` of `className`, or nil.
    func fetch(_ className: String, id: String) async throws -> ParseObject?

    /// The objects matching `query`, in its order, within its limit and skip.
    func find(_ query: StorageQuery) async throws -> [ParseObject]

    /// How many objects match `query` (its limit and skip aside).
    func count(_ query: StorageQuery) async throws -> Int

    /// The distinct values of `field` among the objects of `className` matching `constraints` (an
    /// array field's elements counted one by one; null and missing values left out), as master reads
    /// them, each charged to `budget`. Throws 154 past ``StorageQuery/maximumLimit`` values.
    func distinct(_ className: String, field: String, constraints: [String: ParseValue], budget: ReadBudget) async throws -> [ParseValue]

    /// The rows `pipeline` makes of the objects of `className`, as master reads them, each charged
    /// to `budget`. Throws 154 past ``StorageQuery/maximumLimit`` rows.
    func aggregate(_ className: String, pipeline: AggregatePipeline, budget: ReadBudget) async throws -> [[String: ParseValue]]

    /// Stores a new object, which has its id and timestamps already, adds the objects `relations`
    /// names to its relation fields, queues the after hook `outbox` with it, and stores the new
    /// objects `alongside` (push jobs a before hook recorded) in the same transaction.
    func insert(
        _ object: ParseObject, relations: [String: RelationChange], outbox: OutboxEvent?, alongside: [ParseObject]
    ) async throws

    /// Applies `changes` (relation operations to the join rows) to the stored object and returns it
    /// as written, with the event `outbox` built for it. `check` sees the stored object first and may refuse by throwing; `outbox` builds the
    /// after hook event to queue with the write, and the new objects `alongside` are inserted in its transaction.
    /// Throws ``ParseError/objectNotFound(_:)`` if there is no such object.
    func update(
        _ className: String, id: String, changes: ObjectChanges, updatedAt: Date,
        check: @escaping @Sendable (ParseObject) throws -> Void,
        outbox: (@Sendable (ParseObject) -> OutboxEvent)?, alongside: [ParseObject]
    ) async throws -> (object: ParseObject, event: OutboxEvent?)

    /// Deletes the object `id` of `className`, and every join row that relates it to another object
    /// (as owner or as related object), and returns the event `outbox` built for it; `check`
    /// and `outbox` as for ``update(_:id:changes:updatedAt:check:outbox:)``.
    /// Throws ``ParseError/objectNotFound(_:)`` if there is no such object.
    @discardableResult
    func delete(
        _ className: String, id: String, check: @escaping @Sendable (ParseObject) throws -> Void,
        outbox: (@Sendable (ParseObject) -> OutboxEvent)?
    ) async throws -> OutboxEvent?

    /// The `_Installation` objects whose `key` is `value`, at most `limit`, in id order, found
    /// through an index.
    func installations(with key: InstallationKey, equalTo value: String, limit: Int) async throws -> [ParseObject]

    /// A new transaction that the writes of several operations join — of objects, and of the
    /// accounts and work beside them — to commit by `deadline` (see ``SharedTransaction``).
    func sharedTransaction(deadline: WriteDeadline) -> any SharedTransaction
}

extension ObjectStorage {
    /// Stores a new object and `outbox` with it, nothing alongside.
    public func insert(_ object: ParseObject, outbox: OutboxEvent?) async throws {
        try await insert(object, relations: [:], outbox: outbox, alongside: [])
    }

    /// Stores a new object, `outbox` and the objects `alongside` with it, no relation fields changed.
    public func insert(_ object: ParseObject, outbox: OutboxEvent?, alongside: [ParseObject]) async throws {
        try await insert(object, relations: [:], outbox: outbox, alongside: alongside)
    }

    /// Applies `changes` as ``update(_:id:changes:updatedAt:check:outbox:alongside:)`` does, nothing alongside.
    public func update(
        _ className: String, id: String, changes: ObjectChanges, updatedAt: Date,
        check: @escaping @Sendable (ParseObject) throws -> Void,
        outbox: (@Sendable (ParseObject) -> OutboxEvent)?
    ) async throws -> ParseObject {
        try await update(className, id: id, changes: changes, updatedAt: updatedAt, check: check, outbox: outbox, alongside: []).object
    }
}

/// The fields an installation is found by when it is saved.
public enum InstallationKey: String, Sendable, CaseIterable {
    case installationId
    case deviceToken
}

/// A query as storage runs it.
public struct StorageQuery: Sendable {
    /// The most results one query returns, as on Parse.com.
    package static let maximumLimit = 1000

    /// The class and the client's constraints, order, limit and skip.
    public var query: ParseQuery
    /// The ACL identities of the reader (`*`, user id, roles); nil reads as master (no ACL filter).
    public var readerIdentities: [String]?
    /// What the request may still read: each object found is charged to it as it is read. Nil for
    /// the server's own reads (sessions, roles), which are not bounded.
    public var budget: ReadBudget?

    public init(query: ParseQuery, readerIdentities: [String]?, budget: ReadBudget? = nil) {
        self.query = query
        self.readerIdentities = readerIdentities
        self.budget = budget
    }
}

extension StorageQuery {
    /// Throws 154 when an aggregate or `distinct` that has answered `count` rows has another:
    /// it may answer at most ``maximumLimit``.
    package static func checkAggregateRows(_ count: Int) throws {
        guard count < maximumLimit else {
            throw ParseError(
                code: 154, message: "the aggregate would answer more than \(maximumLimit) results: narrow it with $match, $limit or $skip")
        }
    }
}

/// What an update changes: fields, the ACL if a new one is given (or removed), and a user's password.
public struct ObjectChanges: Sendable {
    /// New values or operations, by field name.
    public var fields: [String: FieldChange]
    /// The new ACL, if the update sets one.
    public var acl: ParseACL?
    /// Whether the update removes the ACL (a `beforeSave` that took it away), leaving the object
    /// open to everyone. An ``acl`` given wins.
    public var removesACL = false
    /// A `_User`'s new password, committed with the fields.
    public var password: PasswordChange?
    /// A `_User`'s checked identities by provider, merged into its stored `authData` (see
    /// ``AuthData/merging(_:into:)``): an object links the provider, null unlinks it.
    public var authData: [String: ParseValue] = [:]

    public init(fields: [String: FieldChange], acl: ParseACL? = nil, password: PasswordChange? = nil) {
        self.fields = fields
        self.acl = acl
        self.password = password
    }

    /// The relation operations among these changes, by field.
    public var relations: [String: RelationChange] {
        fields.compactMapValues { change in
            guard case .operation(.relation(let relation)) = change else { return nil }
            return relation
        }
    }

    /// The object `current` with these changes applied.
    public func applied(to current: ParseObject) throws(ParseError) -> ParseObject {
        var object = current
        for (field, change) in fields {
            switch change {
            case .set(let value): object.fields[field] = value
            case .operation(let operation): object.fields[field] = try operation.apply(to: current.fields[field], field: field)
            }
        }
        if let acl { object.acl = acl } else if removesACL { object.acl = nil }
        if !authData.isEmpty { object.fields[AuthData.field] = AuthData.merging(authData, into: object.fields[AuthData.field]) }
        return object
    }
}
