/// An error with a Parse code and a message, as the REST API answers it: `{"code": 142, "error": "…"}`.
///
/// Hooks throw it to reject a call; the client receives the code and message as they are.
/// ```swift
/// guard let text = request.object["text"]?.stringValue, !text.isEmpty else {
///     throw HookError.validation("text must not be empty")
/// }
/// ```
/// Any other error thrown from a hook reaches the client as code 141 with a generic message; its
/// details go to the app's hook log only.
public struct ParseError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The Parse error code.
    public let code: Int
    /// The message for the client.
    public let message: String
    /// The HTTP status to answer with, where it differs from the one the code implies.
    package let httpStatus: Int?

    /// An error with any Parse code.
    public init(code: Int, message: String) {
        self.init(code: code, message: message, httpStatus: nil)
    }

    package init(code: Int, message: String, httpStatus: Int?) {
        self.code = code
        self.message = message
        self.httpStatus = httpStatus
    }

    public var description: String { "ParseError(\(code)): \(message)" }

    /// The input is not acceptable (142, `VALIDATION_ERROR`).
    public static func validation(_ message: String) -> ParseError { ParseError(code: 142, message: message) }
    /// A hook refused or failed (141, `SCRIPT_FAILED`).
    public static func failed(_ message: String) -> ParseError { ParseError(code: 141, message: message) }
    /// The caller may not do this (119, `OPERATION_FORBIDDEN`).
    public static func unauthorized(_ message: String) -> ParseError { ParseError(code: 119, message: message) }
    /// No such object, or the caller may not see it (101, `OBJECT_NOT_FOUND`).
    public static func objectNotFound(_ message: String = "Object not found.") -> ParseError {
        ParseError(code: 101, message: message)
    }
    /// The query is malformed (102, `INVALID_QUERY`).
    public static func invalidQuery(_ message: String) -> ParseError { ParseError(code: 102, message: message) }
    /// The class name breaks Parse's rules (103, `INVALID_CLASS_NAME`).
    public static func invalidClassName(_ name: String) -> ParseError {
        ParseError(code: 103, message: "Invalid class name: \(name)")
    }
    /// The field name breaks Parse's rules (105, `INVALID_KEY_NAME`).
    public static func invalidKeyName(_ name: String) -> ParseError {
        ParseError(code: 105, message: "Invalid field name: \(name)")
    }
    /// The body is not acceptable JSON (107, `INVALID_JSON`).
    public static func invalidJSON(_ message: String) -> ParseError { ParseError(code: 107, message: message) }
    /// A value has the wrong type (111, `INCORRECT_TYPE`).
    public static func incorrectType(_ message: String) -> ParseError { ParseError(code: 111, message: message) }
    /// The hook ran past its time limit (124, `TIMEOUT`).
    public static func timeout(_ message: String) -> ParseError { ParseError(code: 124, message: message) }
    /// Something failed inside the server (1, `INTERNAL_SERVER_ERROR`); details go to the log only.
    public static let internalError = ParseError(code: 1, message: "Internal server error.")
}

/// What hooks throw to reject a call: the same type as ``ParseError``.
public typealias HookError = ParseError
