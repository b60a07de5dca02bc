import Cloudlet

/// What one subscriber may read of a class, as a query of theirs would: the class-level permission
/// of the subscription's operation (with what pointer permissions ask of each object), each
/// object's ACL with the caller's user id and roles, and the protected fields hidden from them.
struct LiveReadAccess {
    let caller: Caller
    let restriction: ObjectRestriction?
    let permissions: ClassLevelPermissions
    let protectedFields: ProtectedFields

    /// The access of `caller` to `className` (whose schema is `schema`, nil if it has none) for
    /// `operation`; nil when the class-level permissions refuse the caller the class altogether.
    init?(
        caller: Caller, operation: ClassLevelPermissions.Operation, className: String, schema: StoredClassSchema?, allowsClientClassCreation: Bool,
        protectedFields: ProtectedFields
    ) {
        do {
            restriction = try ClassPermissions.grant(
                operation, className, schema: schema, allowsClientClassCreation: allowsClientClassCreation, caller: caller)
        } catch {
            return nil
        }
        self.caller = caller
        permissions = schema?.effectivePermissions ?? .open
        self.protectedFields = protectedFields
    }

    /// Whether the caller may read `object`: its ACL lets them, and it meets the pointer permissions
    /// the grant asks for.
    func reads(_ object: ParseObject) -> Bool {
        if let identities = caller.aclIdentities, let acl = object.acl, !acl.allowsRead(by: identities) { return false }
        return restriction?.allows(object) ?? true
    }

    /// `object` without the fields hidden from the caller.
    func redacted(_ object: ParseObject) -> ParseObject {
        protectedFields.redacted(object, for: caller, permissions: permissions)
    }
}
