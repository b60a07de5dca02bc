import Cloudlet
import Foundation

/// The deadline of the hook a write is made for. Writes made on its behalf are checked against it
/// as they start and again inside their transaction, right before it commits, in the one writer
/// that serializes them: once the hook's caller has been answered 504/124, nothing it asked for is
/// written.
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

    public init(deadline: Date, clock: any CloudletClock) {
        self.deadline = deadline
        self.clock = clock
    }

    /// Throws 124 (HTTP 504) once the deadline has passed.
    public func check() throws {
        guard clock.now < deadline else {
            throw ParseError(code: 124, message: "the hook's time ran out before its write", httpStatus: 504)
        }
    }
}
