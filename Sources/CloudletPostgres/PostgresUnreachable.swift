import Cloudlet
import PostgresNIO
import _ConnectionPoolModule

extension PostgresDatabase {
    /// What a request answers when the database cannot be reached: 503, so that a client or a
    /// load balancer tries again later.
    package static let unreachable = ParseError(code: 1, message: "the database cannot be reached; try again later", httpStatus: 503)

    /// Whether `error` says the database could not be reached (no connection could be made, or the
    /// one in use was lost) rather than that a statement failed.
    package static func isUnreachable(_ error: any Error) -> Bool {
        if error is ConnectionPoolError { return true }
        guard let error = error as? PSQLError else { return false }
        return [.connectionError, .serverClosedConnection, .uncleanShutdown, .poolClosed].contains(error.code)
    }

    /// Whether this node listens for other nodes' notifications now: false once its listening
    /// connection is lost (the database stopped, or cannot be reached), true again once it
    /// listens, which it tries every second.
    public var isListening: Bool {
        notifications.listenerProcessId != nil
    }
}
