import Cloudlet

/// What a `_Role` object must be, as Parse keeps it: a `name` made of letters, digits, `_`, `-` and
/// spaces, set when the role is created and never changed (unique in the app: the store refuses a
/// second role of the same name with 137); an ACL; and two relations, `users` (to `_User`, the
/// role's members) and `roles` (to `_Role`, the roles whose members inherit this one), changed by
/// `AddRelation` and `RemoveRelation`.
///
/// Parse Server requires the name and the ACL (111); the Parse SDKs refuse a malformed name and a
/// rename before they send it (code -1, `OTHER_CAUSE`), which the server does too here, so that a
/// plain REST call cannot make a role whose name an ACL entry could not name.
enum RoleRules {
    /// The longest name a role may have, in bytes: each name a user holds is one of its ACL
    /// identities, bound into every query it makes and cached, so the names' size is bounded.
    static let maximumNameBytes = 256
    /// The relation fields of a role, and the class each relates.
    static let relationTargets = ["users": SystemClass.user.name, "roles": SystemClass.role.name]

    /// Throws for a create or update of a `_Role` (nothing for another class) whose changes break a
    /// rule: a relation field set to something other than a relation of its class (111), a name
    /// that is not a string (111) or not made of the allowed characters (-1).
    static func checkChanges(_ className: String, _ changes: ObjectChanges) throws {
        guard className == SystemClass.role.name else { return }
        for (field, target) in relationTargets {
            guard let change = changes.fields[field] else { continue }
            switch change {
            case .operation(.relation(let relation)) where relation.targetClass == target: continue
            case .set(let value) where value.relationClassName == target: continue
            default:
                throw notARelation(field, target)
            }
        }
        if let name = changes.fields["name"] {
            guard case .set(let value) = name else { throw invalidName }
            try checkName(value)
        }
    }

    /// Throws for a new role (as its before hook left it) without a name (111), with a malformed
    /// one, without an ACL (111), or with a relation field that holds anything but its relation.
    static func checkCreated(_ role: ParseObject) throws {
        guard role.className == SystemClass.role.name else { return }
        guard let name = role["name"], name != .null else { throw ParseError.incorrectType("name is required.") }
        try checkName(name)
        guard role.acl != nil else { throw ParseError.incorrectType("ACL is required.") }
        for (field, target) in relationTargets {
            guard let value = role[field], value.relationClassName != target else { continue }
            throw notARelation(field, target)
        }
    }

    /// Throws (-1) when `changes` would give the stored role `current` another name, or none.
    static func checkKeepsName(_ current: ParseObject, _ changes: ObjectChanges) throws {
        guard current.className == SystemClass.role.name, let change = changes.fields["name"] else { return }
        guard case .set(let name) = change, name == current["name"] else {
            throw ParseError(code: -1, message: "A role's name can only be set before it has been saved.")
        }
    }

    /// Whether `name` may name a role: one or more ASCII letters, digits, `_`, `-` and spaces (the
    /// pattern Parse's SDKs hold role names to), at most ``maximumNameBytes`` of them.
    static func isValidName(_ name: String) -> Bool {
        !name.isEmpty && name.utf8.count <= maximumNameBytes
            && name.utf8.allSatisfy { byte in
                switch byte {
                case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"):
                    true
                case UInt8(ascii: "_"), UInt8(ascii: "-"), UInt8(ascii: " "): true
                default: false
                }
            }
    }

    private static let invalidName = ParseError.incorrectType("A role's name must be a String.")

    private static func notARelation(_ field: String, _ target: String) -> ParseError {
        .incorrectType("\(field) is a relation to \(target): change it with AddRelation and RemoveRelation")
    }

    private static func checkName(_ value: ParseValue) throws {
        guard let name = value.stringValue else { throw invalidName }
        guard isValidName(name) else {
            throw ParseError(
                code: -1,
                message: "A role's name can only contain alphanumeric characters, _, -, and spaces, at most \(maximumNameBytes) of them.")
        }
    }
}
