import Cloudlet

/// Fields that only the master key — and, on `_User`, the user itself — may read, filter or sort
/// on: Parse Server's `protectedFields`. Every object a read answers (get, find, each `include`d
/// object at any depth, the operations of a batch, a hook's store) passes through
/// ``redacted(_:for:)``, and every query through ``checkQueryable(_:by:)``.
///
/// ```swift
/// var fields = ProtectedFields.standard
/// fields.byClass["Profiles", default: []].insert("phone")
/// ```
public struct ProtectedFields: Sendable {
    /// The protected field names of each class.
    public var byClass: [String: Set<String>]

    /// Parse's default: a user's `email` and `authData`, seen by that user and the master key only.
    public static let standard = ProtectedFields(byClass: ["_User": ["email", "authData"]])

    public init(byClass: [String: Set<String>]) {
        self.byClass = byClass
    }

    /// `object` without the fields `caller` may not see.
    func redacted(_ object: ParseObject, for caller: Caller) -> ParseObject {
        guard !caller.isMaster, let hidden = byClass[object.className], !isOwn(object, caller) else { return object }
        var object = object
        for field in hidden { object.fields[field] = nil }
        return object
    }

    /// Throws 119 when a caller other than the master key filters or sorts `query` on a protected
    /// field, or reaches one through an inner query (`$inQuery`, `$select`, …: its `where` and its
    /// `key`); an inner query's class must also be one the caller may find (``SystemClass``).
    func checkQueryable(_ query: ParseQuery, by caller: Caller) throws {
        guard !caller.isMaster else { return }
        let ordered = query.order.map { $0.hasPrefix("-") ? String($0.dropFirst()) : $0 }
        try checkFields(Self.fieldPaths(in: query.constraints) + ordered, of: query.className)
        for inner in InnerQuery.all(in: query.constraints) {
            try SystemClass.check(.find, inner.className, by: caller)
            try checkFields(inner.key.map { [$0] } ?? [], of: inner.className)
            try checkQueryable(inner.query, by: caller)
        }
    }

    private func checkFields(_ paths: [String], of className: String) throws {
        guard let hidden = byClass[className] else { return }
        for path in paths {
            let field = String(path.prefix { $0 != "." })
            guard !hidden.contains(field) else {
                throw ParseError(code: 119, message: "This user is not allowed to query \(field) on class \(className)")
            }
        }
    }

    private func isOwn(_ object: ParseObject, _ caller: Caller) -> Bool {
        object.className == "_User" && object.objectId != nil && object.objectId == caller.userId
    }

    /// The field paths a `where` names, inside `$or` and `$and` too.
    private static func fieldPaths(in constraints: [String: ParseValue]) -> [String] {
        constraints.flatMap { key, value -> [String] in
            guard key == "$or" || key == "$and" else { return [key] }
            return (value.arrayValue ?? []).flatMap { fieldPaths(in: $0.objectValue ?? [:]) }
        }
    }
}
