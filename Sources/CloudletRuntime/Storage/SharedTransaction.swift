/// One transaction that the writes of several operations join: those of a `POST /batch` with
/// `"transaction": true` (see ``TransactionalBatch``). While it prepares, the first write each of
/// its operations makes is held, not run, and that operation waits; ``commit()`` then runs every
/// held write, in the order they were held, in one transaction of the storage, which holds its
/// writer for those writes alone. Once it has committed, each operation goes on (its after hook
/// runs, in turn) and any write it makes then is one of its own; once it has rolled back, every write its
/// operations make is refused.
///
/// A storage makes one with ``ObjectStorage/sharedTransaction(deadline:)``; its writes join it in a
/// task that runs with a ``SharedTransactionMember``.
public protocol SharedTransaction: AnyObject, Sendable {
    /// The time the transaction must commit by: checked inside it, right before it commits.
    var deadline: WriteDeadline { get }

    /// Runs every held write in one transaction, in the order held, then lets their operations go
    /// on. If one fails, or the deadline has passed, nothing is written: that write's operation
    /// gets its error, the others ``SharedTransactionRolledBack``, and this throws that error.
    func commit() async throws

    /// Drops every held write: their operations get ``SharedTransactionRolledBack``, as does any
    /// write they make afterwards.
    func rollBack()
}

/// What the write of an operation gets when the transaction it joined rolled back, through no
/// fault of its own.
public struct SharedTransactionRolledBack: Error, Sendable {
    public init() {}
}

/// The task of an operation whose writes join a ``SharedTransaction``: set for the task that runs
/// the operation, read by the storage's writes.
public struct SharedTransactionMember: Sendable {
    /// The member the current task runs, if it runs one.
    @TaskLocal public static var current: SharedTransactionMember?

    /// The transaction its writes join.
    public let transaction: any SharedTransaction
    /// Called once its write is held, by the storage that holds it.
    public let held: @Sendable () -> Void
    /// Waits, once its write has committed, until the operations before it have ended: its after
    /// hook then runs after theirs, as in a batch without a transaction.
    public let waitForTurn: @Sendable () async -> Void

    public init(
        transaction: any SharedTransaction, held: @escaping @Sendable () -> Void, waitForTurn: @escaping @Sendable () async -> Void = {}
    ) {
        self.transaction = transaction
        self.held = held
        self.waitForTurn = waitForTurn
    }
}
