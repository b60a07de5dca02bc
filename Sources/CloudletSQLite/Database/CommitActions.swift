import GRDB

/// What a write of a group (``SQLiteWriteGroups``) asks to run once it has committed: kept while it
/// runs, on the writer, and dropped if it rolls back to its savepoint.
final class CommitActions: @unchecked Sendable {
    /// The actions of the write the writer runs now, if it runs one of a group.
    @TaskLocal static var current: CommitActions?

    /// Only read and written on the writer, by the write it belongs to.
    private(set) var list: [@Sendable () -> Void] = []

    func append(_ action: @escaping @Sendable () -> Void) {
        list.append(action)
    }
}

extension Database {
    /// Runs `action` once the current write has committed: when the transaction commits, or, for a
    /// write of a group, when the group commits with it (not if it rolled back to its savepoint).
    func afterCommit(_ action: @escaping @Sendable () -> Void) {
        if let actions = CommitActions.current {
            actions.append(action)
        } else {
            afterNextTransaction { _ in action() }
        }
    }
}
