/// The Parse REST endpoints Cloudlet serves, by path below the mount path.
enum ParseEndpoint: Sendable, Equatable {
    case classes(String)
    case object(String, String)
    case batch
    case function(String)
    case users
    case user(String)
    case currentUser
    case login
    case logout
    case installations
    case installation(String)
    case push
    /// `POST` (upload) or `DELETE /files/:name`; not reachable from a batch.
    case file(String)
    /// `GET /files/:appId/:name`, a file's URL; not reachable from a batch.
    case fileDownload(String, String)
    case job(String)

    /// The endpoint at `path` (such as `/parse/classes/Messages/abc` or `/classes/Messages`), or nil.
    init?(path: String, mountPath: String) {
        var path = Substring(path)
        if !mountPath.isEmpty, path.hasPrefix(mountPath + "/") { path = path.dropFirst(mountPath.count) }
        let parts = path.split(separator: "/", omittingEmptySubsequences: true).map(String.init)
        switch parts.count {
        case 1 where parts[0] == "batch": self = .batch
        case 1 where parts[0] == "users": self = .users
        case 1 where parts[0] == "login": self = .login
        case 1 where parts[0] == "logout": self = .logout
        case 1 where parts[0] == "installations": self = .installations
        case 1 where parts[0] == "push": self = .push
        case 2 where parts[0] == "installations": self = .installation(parts[1])
        case 2 where parts[0] == "users" && parts[1] == "me": self = .currentUser
        case 2 where parts[0] == "users": self = .user(parts[1])
        case 2 where parts[0] == "classes": self = .classes(parts[1])
        case 2 where parts[0] == "functions": self = .function(parts[1])
        case 2 where parts[0] == "jobs": self = .job(parts[1])
        case 3 where parts[0] == "classes": self = .object(parts[1], parts[2])
        default: return nil
        }
    }
}

extension ParseEndpoint {
    /// The endpoint's path below the mount path, as rate-limit rules match it.
    var path: String {
        switch self {
        case .classes(let className): "/classes/\(className)"
        case .object(let className, let id): "/classes/\(className)/\(id)"
        case .batch: "/batch"
        case .function(let name): "/functions/\(name)"
        case .users: "/users"
        case .user(let id): "/users/\(id)"
        case .currentUser: "/users/me"
        case .login: "/login"
        case .logout: "/logout"
        case .installations: "/installations"
        case .installation(let id): "/installations/\(id)"
        case .push: "/push"
        case .file(let name): "/files/\(name)"
        case .fileDownload(let appId, let name): "/files/\(appId)/\(name)"
        case .job(let name): "/jobs/\(name)"
        }
    }
}
