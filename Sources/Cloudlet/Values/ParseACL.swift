/// An access control list in Parse's format: for each entry (`"*"` for everyone, a user id, or
/// `"role:Name"`), whether it may read and whether it may write.
///
/// ```swift
/// request.object.acl = .only(readers: [sender, recipient], writers: [sender])
/// ```
public struct ParseACL: Sendable, Hashable {
    /// What one entry of an ACL allows.
    public struct Permission: Sendable, Hashable {
        /// May read the object.
        public var read: Bool
        /// May change or delete the object.
        public var write: Bool

        /// A permission with the given flags.
        public init(read: Bool = false, write: Bool = false) {
            self.read = read
            self.write = write
        }
    }

    /// The entry that stands for everyone.
    public static let publicEntry = "*"

    /// The permissions, keyed by `"*"`, a user id or `"role:Name"`.
    public var entries: [String: Permission]

    /// An ACL with the given entries.
    public init(_ entries: [String: Permission] = [:]) {
        self.entries = entries
    }

    /// An ACL that lets `readers` read and `writers` write, and nobody else.
    public static func only(readers: [String], writers: [String]) -> ParseACL {
        var acl = ParseACL()
        for reader in readers { acl.entries[reader, default: Permission()].read = true }
        for writer in writers { acl.entries[writer, default: Permission()].write = true }
        return acl
    }

    /// An ACL that lets everyone read and write.
    public static let publicReadWrite = ParseACL([publicEntry: Permission(read: true, write: true)])

    /// Whether everyone may read.
    public var publicRead: Bool { entries[Self.publicEntry]?.read ?? false }

    /// Whether everyone may write.
    public var publicWrite: Bool { entries[Self.publicEntry]?.write ?? false }

    /// Whether a caller known by `identities` (user id, `role:` names) may read.
    public func allowsRead(by identities: [String]) -> Bool {
        publicRead || identities.contains { entries[$0]?.read ?? false }
    }

    /// Whether a caller known by `identities` (user id, `role:` names) may write.
    public func allowsWrite(by identities: [String]) -> Bool {
        publicWrite || identities.contains { entries[$0]?.write ?? false }
    }

    /// The ACL in Parse's JSON form: `{"*": {"read": true}, "u1": {"read": true, "write": true}}`.
    public var json: ParseValue {
        .object(
            entries.mapValues { permission in
                var flags: [String: ParseValue] = [:]
                if permission.read { flags["read"] = true }
                if permission.write { flags["write"] = true }
                return .object(flags)
            })
    }

    /// Reads an ACL in Parse's JSON form; nil if `json` is not of that form.
    public init?(json: ParseValue) {
        guard let members = json.objectValue else { return nil }
        var entries: [String: Permission] = [:]
        for (key, value) in members {
            guard let flags = value.objectValue, !key.isEmpty else { return nil }
            var permission = Permission()
            for (flag, allowed) in flags {
                guard let allowed = allowed.boolValue else { return nil }
                switch flag {
                case "read": permission.read = allowed
                case "write": permission.write = allowed
                default: return nil
                }
            }
            entries[key] = permission
        }
        self.entries = entries
    }
}
