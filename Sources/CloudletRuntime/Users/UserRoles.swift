import Cloudlet

/// The roles a user holds, as Parse Server resolves them: every `_Role` whose `users` relation
/// holds the user, then every role whose `roles` relation holds one of those, and so on up the
/// hierarchy (a role's `roles` relation lists the roles whose members inherit it). Each role counts
/// once, so a cycle ends where it closes. Resolved with the request's session
/// (``UserAccounts/caller(sessionToken:installationId:requestId:)``) and kept with it in the app's
/// ``SessionCache``; the names become the caller's `role:` ACL identities (``Caller/roles``),
/// inherited ones included.
///
/// The work one resolution may do is bounded: a user may hold at most ``maximumRoles`` roles,
/// inherited at most ``maximumDepth`` levels above its own, and resolving them may read at most
/// ``maximumLinks`` relation rows; past any of them the request is refused (119) rather than
/// answered with some of the user's roles.
public struct UserRoles: Sendable {
    /// The most roles one user may hold, directly and inherited.
    public static let maximumRoles = 1_000
    /// The most `users` and `roles` relation rows one resolution reads (a row naming a role
    /// already found counts too).
    public static let maximumLinks = 20_000
    /// How many levels of inheritance above the roles that hold the user itself a resolution
    /// follows: each level is one query.
    public static let maximumDepth = 50

    let app: AppContext

    package init(_ app: AppContext) {
        self.app = app
    }

    /// The names of the roles the user `id` holds, sorted, as the store holds them now. Throws
    /// ``tooMany(_:)`` past the bounds.
    public func names(ofUser id: String) async throws -> [String] {
        try await app.stores.accounts.roleNames(ofUser: id)
    }

    /// The error of a resolution past a bound: 119 (403), naming what ran over.
    public static func tooMany(_ what: String) -> ParseError {
        ParseError(
            code: 119,
            message: "the user's roles cannot be resolved: \(what) (at most \(maximumRoles) roles, \(maximumDepth) levels, \(maximumLinks) links)",
            httpStatus: 403)
    }
}
