/// The app's objects, as a hook sees them. Calls act as the hook's caller unless made through
/// ``asMaster``; saves and deletes made here run their own hooks, with the time left of the caller's
/// deadline and a bound on how deep such calls may nest.
///
/// ```swift
/// let thread = try await request.store.get("MessageThread", id: threadId)
/// var counter = ParseObject(className: "Counters", fields: ["count": 0])
/// counter = try await request.store.save(counter)
/// ```
public protocol HookStore: Sendable {
    /// The object `id` of `className`, or nil if there is none the caller may read.
    func get(_ className: String, id: String) async throws -> ParseObject?

    /// The objects that match `query` and that the caller may read.
    func find(_ query: ParseQuery) async throws -> [ParseObject]

    /// How many objects match `query`.
    func count(_ query: ParseQuery) async throws -> Int

    /// Creates the object (if it has no `objectId`) or updates it with its fields, and returns it as
    /// saved. Field values may be Parse field operations (`{"__op": "Increment", "amount": 1}`,
    /// ``ParseValue/addRelation(_:)``).
    func save(_ object: ParseObject) async throws -> ParseObject

    /// Deletes the object `id` of `className`.
    func delete(_ className: String, id: String) async throws

    /// Calls the function hook `name` with `params` and returns its result.
    func call(_ name: String, params: [String: ParseValue]) async throws -> ParseValue

    /// The app's config parameters (`GET /config`) as the caller may read them: those set
    /// `masterKeyOnly` only through ``asMaster``.
    func config() async throws -> [String: ParseValue]

    /// The same store acting with the master key: no ACL applies.
    var asMaster: any HookStore { get }
}

extension HookStore {
    /// For stores that do not read the config (test doubles of a hook author's): 141.
    public func config() async throws -> [String: ParseValue] {
        throw ParseError.failed("this store does not read the app's config")
    }
}
