import Cloudlet

/// Parse's own classes and the rules that set each apart from an app's classes: whether
/// `/classes` reaches it, who may write it, whether clients may list it, and whose logic saves
/// it. The checks of every read and write (``check(_:_:by:)``) and the REST routes of users,
/// sessions and installations consult this one table.
///
/// | Class | `/classes` | Writers | Clients list | Saved by |
/// |---|---|---|---|---|
/// | `_User` | yes | as the ACL allows | yes | accounts (sign-up, password hashing) |
/// | `_Installation` | yes | as the ACL allows | get by id only | installations (upsert by `installationId`) |
/// | `_Session` | yes, served by ``UserSessions`` (not the object store) | its user (own fields only) | its user's own | sessions |
/// | `_Role` | yes | as the ACL allows (clients create roles, as in Parse Server) | yes | plain, held to ``RoleRules`` |
/// | `_PushStatus` | yes | master key | yes | plain |
/// | `_JobStatus` | yes | the server | yes | plain |
public struct SystemClass: Sendable {
    /// Who may create, change and delete a class's objects.
    public enum Writers: Sendable {
        /// Any caller, as each object's ACL allows.
        case acl
        /// Only the master key (push jobs are the server's to send).
        case masterKey
        /// Only the server itself, whoever asks (job runs).
        case server
    }

    /// Whose logic saves a class's objects, beyond the plain save every class has.
    public enum Saves: Sendable {
        case plain
        /// Accounts: a created user signs up (hashed password, a session).
        case accounts
        /// Sessions, kept beside the accounts: every read and write of `_Session` goes to
        /// ``UserSessions`` (each user reaches only their own; the master key all), none to the
        /// object store, whose gets, finds and writes refuse the class (103).
        case sessions
        /// Installations: a create updates the installation with the same `installationId`.
        case installations
    }

    /// The class name, such as `_User`.
    public let name: String
    /// Whether the object store's paths (`/classes/<name>`, hooks' queries) may name it (class
    /// names of apps may not start with `_`, so only the reachable system classes are valid names
    /// that do). `_Session` is not: its own part serves it.
    public let isReachable: Bool
    /// Who may create, change and delete its objects.
    public let writers: Writers
    /// Whether a client (not the master key) may find, count and delete its objects; if not, it
    /// may only get one by its id.
    public let clientsMayList: Bool
    /// Whose logic saves its objects.
    public let saves: Saves

    package static let user = SystemClass(name: "_User", isReachable: true, writers: .acl, clientsMayList: true, saves: .accounts)
    package static let installation = SystemClass(
        name: "_Installation", isReachable: true, writers: .acl, clientsMayList: false, saves: .installations)
    package static let session = SystemClass(name: "_Session", isReachable: false, writers: .server, clientsMayList: false, saves: .sessions)
    package static let role = SystemClass(name: "_Role", isReachable: true, writers: .acl, clientsMayList: true, saves: .plain)
    package static let pushStatus = SystemClass(name: "_PushStatus", isReachable: true, writers: .masterKey, clientsMayList: true, saves: .plain)
    package static let jobStatus = SystemClass(name: "_JobStatus", isReachable: true, writers: .server, clientsMayList: true, saves: .plain)

    /// Every system class by name.
    package static let all: [String: SystemClass] = Dictionary(
        uniqueKeysWithValues: [user, installation, session, role, pushStatus, jobStatus].map { ($0.name, $0) })

    /// The system class `name`, or nil for an app's own class.
    public static func named(_ name: String) -> SystemClass? { all[name] }

    /// What a call does to a class's objects, as ``check(_:_:by:)`` weighs it.
    public enum Operation: String, Sendable {
        /// One object by its id.
        case get
        /// A query, or a count.
        case find
        case create, update, delete

        var writes: Bool { self == .create || self == .update || self == .delete }
    }

    /// Throws when `caller` may not do `operation` on `className`: 103 for a class name that is
    /// not valid (or a system class `/classes` does not reach), 119/403 for writing a class only
    /// the server or the master key writes, or for a client finding, counting or deleting in a
    /// class it may not list (installations, as Parse Server refuses them). The runtime's gets,
    /// finds, creates, updates and deletes pass here first, whatever route or hook asks.
    public static func check(_ operation: Operation, _ className: String, by caller: Caller) throws {
        guard let rules = named(className) else { return try ParseNames.validateClassName(className) }
        guard rules.isReachable else { throw ParseError.invalidClassName(className) }
        if operation.writes {
            switch rules.writers {
            case .acl: break
            case .server: throw ParseError(code: 119, message: "\(className) is written by the server only", httpStatus: 403)
            case .masterKey:
                guard caller.isMaster else {
                    throw ParseError(code: 119, message: "only the master key may change \(className)", httpStatus: 403)
                }
            }
        }
        if !rules.clientsMayList, !caller.isMaster, operation == .find || operation == .delete {
            let collection = className.dropFirst().lowercased()
            throw ParseError(
                code: 119,
                message: "Clients aren't allowed to perform the \(operation.rawValue) operation on the \(collection) collection.",
                httpStatus: 403)
        }
    }
}
