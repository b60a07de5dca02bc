import Cloudlet
import Foundation

/// The deadline of the hook a write is made for (or of a transactional batch, see
/// ``SharedTransaction``). Writes made on its behalf are checked against it as they start and again
/// inside their transaction, right before it commits, in the one writer that serializes them: once
/// the hook's caller has been answered 504/124, nothing it asked for is written.
///
/// ```swift
/// try await WriteDeadline.$current.withValue(WriteDeadline(deadline: context.deadline, clock: clock)) {
///     try await storage.insert(object, outbox: nil)
/// }
/// ```
public struct WriteDeadline: Sendable {
    /// The deadline of the writes made in the current task, if they are made for a hook.
    @TaskLocal public static var current: WriteDeadline?

    /// When the hook's time runs out.
    public let deadline: Date
    /// The clock the deadline is read on.
    public let clock: any CloudletClock
    /// What a write past the deadline answers, with code 124.
    public let message: String

    public init(deadline: Date, clock: any CloudletClock, message: String = "the hook's time ran out before its write") {
        self.deadline = deadline
        self.clock = clock
        self.message = message
    }

    /// Throws 124 (HTTP 504) once the deadline has passed.
    public func check() throws {
        guard clock.now < deadline else {
            throw ParseError(code: 124, message: message, httpStatus: 504)
        }
    }
}
