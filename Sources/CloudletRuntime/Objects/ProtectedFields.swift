import Cloudlet

/// Fields that only the master key — and, on `_User`, the user itself — may read, filter or sort
/// on: Parse Server's `protectedFields`. Every object a read answers (get, find, each `include`d
/// object at any depth, the operations of a batch, a hook's store) passes through
/// ``redacted(_:for:permissions:)``, and every query through ``ClassPermissions/checkedQuery(_:by:)``.
/// These are the app's own (set where the app is defined); each class's CLPs add theirs
/// (``ClassLevelPermissions/protectedFields``), merged as Parse Server merges its
/// `protectedFields` option into them.
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

    /// `object` without the fields `caller` may not see (``hidden(_:object:for:permissions:)``).
    func redacted(_ object: ParseObject, for caller: Caller, permissions: ClassLevelPermissions) -> ParseObject {
        let hidden = hidden(object.className, object: object, for: caller, permissions: permissions)
        guard !hidden.isEmpty else { return object }
        var object = object
        for field in hidden { object.fields[field] = nil }
        return object
    }

    /// The fields of `className` hidden from `caller`, as Parse Server works them out: the sets that
    /// apply to the caller — these fields and the CLPs' `*`, and for a user `authenticated`, each of
    /// its roles and its id — intersected, so that any one of them may show a field; for an
    /// `object`, each `userField:<field>` whose field points at the caller applies too. Nothing is
    /// hidden from the master key, nor from a user reading its own `_User` object.
    func hidden(_ className: String, object: ParseObject?, for caller: Caller, permissions: ClassLevelPermissions) -> Set<String> {
        guard !caller.isMaster, !(object.map { isOwn($0, caller) } ?? false) else { return [] }
        let protected = permissions.protectedFields
        var sets: [Set<String>] = []
        let everyone = Set(protected["*"] ?? []).union(byClass[className] ?? [])
        if protected["*"] != nil || byClass[className] != nil { sets.append(everyone) }
        if let userId = caller.userId {
            for key in ["authenticated", userId] + caller.roles.map({ "role:" + $0 }) {
                if let fields = protected[key] { sets.append(Set(fields)) }
            }
        }
        var hidden = sets.first.map { sets.dropFirst().reduce($0) { $0.intersection($1) } }
        if let object, let userId = caller.userId {
            for (key, fields) in protected where key.hasPrefix("userField:") {
                let value = object.fields[String(key.dropFirst("userField:".count))]
                let pointers = value?.arrayValue ?? [value ?? .null]
                guard pointers.contains(where: { $0.pointerValue?.objectId == userId && $0.pointerValue?.className == "_User" }) else { continue }
                hidden = (hidden ?? Set(fields)).intersection(fields)
            }
        }
        return hidden ?? []
    }

    /// Throws 119 when a field of `paths` (a `where`'s or an order's field paths) is one of `hidden`.
    static func checkQueryable(_ paths: [String], of className: String, hidden: Set<String>) throws {
        guard !hidden.isEmpty else { return }
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

    /// The field paths a query filters and sorts on, inside `$or` and `$and` too.
    static func fieldPaths(of query: ParseQuery) -> [String] {
        fieldPaths(in: query.constraints) + query.order.map { $0.hasPrefix("-") ? String($0.dropFirst()) : $0 }
    }

    private static func fieldPaths(in constraints: [String: ParseValue]) -> [String] {
        constraints.flatMap { key, value -> [String] in
            guard key == "$or" || key == "$and" else { return [key] }
            return (value.arrayValue ?? []).flatMap { fieldPaths(in: $0.objectValue ?? [:]) }
        }
    }
}
