import Cloudlet

/// One resolution of a user's roles (see ``UserRoles``), level by level, for a store to drive: it
/// asks for the roles whose relation ``level`` holds one of the level's objects, at most
/// ``rowLimit`` relation rows, and hands them to ``read(_:)`` until ``level`` is nil; then
/// ``names`` are the user's roles. Every store resolves alike and within the same bounds.
/// ```swift
/// var resolution = RoleResolution(userId: id)
/// while let level = resolution.level {
///     try resolution.read(owners(of: level, limit: resolution.rowLimit))
/// }
/// return resolution.names
/// ```
package struct RoleResolution: Sendable {
    /// A level of the hierarchy: the roles whose relation `field` holds one of `ids` of `relatedClass`.
    package struct Level: Sendable {
        package let field: String
        package let relatedClass: String
        package let ids: [String]
    }

    /// The level to read next; nil once the resolution is done.
    package private(set) var level: Level?
    private var found: Set<String> = []
    private var foundNames: [String] = []
    private var linksRead = 0
    /// The roles that hold the user itself are at depth 0, those they inherit at 1, and so on.
    private var depth = 0

    /// A resolution of the roles of the user `userId`: first the roles whose `users` relation holds it.
    package init(userId: String) {
        level = Level(field: "users", relatedClass: SystemClass.user.name, ids: [userId])
    }

    /// The most relation rows the next level may answer: one more than the resolution may still
    /// read, so that running over is seen.
    package var rowLimit: Int { UserRoles.maximumLinks - linksRead + 1 }

    /// The names of the roles found, sorted.
    package var names: [String] { foundNames.sorted() }

    /// Takes the rows of ``level`` (each a role's id and its name, nil if it has none), each role
    /// once. Throws ``UserRoles/tooMany(_:)`` past ``UserRoles/maximumRoles`` roles,
    /// ``UserRoles/maximumDepth`` levels or ``UserRoles/maximumLinks`` rows read.
    package mutating func read(_ rows: [(id: String, name: String?)]) throws {
        linksRead += rows.count
        guard linksRead <= UserRoles.maximumLinks else { throw UserRoles.tooMany("more than \(UserRoles.maximumLinks) links") }
        var next: [String] = []
        for (id, name) in rows where found.insert(id).inserted {
            next.append(id)
            if let name { foundNames.append(name) }
        }
        guard found.count <= UserRoles.maximumRoles else { throw UserRoles.tooMany("more than \(UserRoles.maximumRoles) roles") }
        guard next.isEmpty || depth <= UserRoles.maximumDepth else {
            throw UserRoles.tooMany("inherited more than \(UserRoles.maximumDepth) levels deep")
        }
        depth += 1
        level = next.isEmpty ? nil : Level(field: "roles", relatedClass: SystemClass.role.name, ids: next)
    }
}
