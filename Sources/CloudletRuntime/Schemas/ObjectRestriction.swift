import Cloudlet

/// What an operation granted only through pointer permissions (`pointerFields`,
/// `readUserFields`, `writeUserFields`) still asks of each object: that one of ``fields`` points at
/// the caller (a pointer to the user, or an array holding one). A caller with no user reaches no object.
struct ObjectRestriction: Sendable {
    /// The caller's user id, nil for none.
    let userId: String?
    /// The fields that may grant access, each with whether it holds an array of pointers.
    let fields: [(name: String, isArray: Bool)]

    /// Whether `object` points at the caller through one of the fields.
    func allows(_ object: ParseObject) -> Bool {
        guard let userId else { return false }
        return fields.contains { field in
            let value = object.fields[field.name]
            let pointers = value?.arrayValue ?? [value ?? .null]
            return pointers.contains { $0.pointerValue?.className == "_User" && $0.pointerValue?.objectId == userId }
        }
    }

    /// `constraints` narrowed to the objects that point at the caller, as Parse Server narrows the
    /// query; nil when the caller has no user (nothing can match).
    func narrowing(_ constraints: [String: ParseValue]) -> [String: ParseValue]? {
        guard let userId else { return nil }
        let user = ParseValue.pointer(className: "_User", objectId: userId)
        let clauses: [ParseValue] = fields.map { field in
            .object([field.name: field.isArray ? ["$all": [user]] : user])
        }
        let pointing: ParseValue = clauses.count == 1 ? clauses[0] : ["$or": .array(clauses)]
        return constraints.isEmpty ? pointing.objectValue : ["$and": [.object(constraints), pointing]]
    }

    /// Throws "not found" (as for an object the ACL hides) unless `object` points at the caller.
    func check(_ object: ParseObject) throws {
        guard allows(object) else { throw ParseError.objectNotFound() }
    }
}

extension Optional where Wrapped == ObjectRestriction {
    /// Throws "not found" unless there is no restriction or `object` meets it.
    func check(_ object: ParseObject) throws {
        try self?.check(object)
    }
}
