import Cloudlet

extension ParseError {
    /// The service cannot take the call now (HTTP 503).
    package static func unavailable(_ message: String, code: Int = 141) -> ParseError {
        ParseError(code: code, message: message, httpStatus: 503)
    }

    /// A hook's worker ended while running it (HTTP 500, code 141).
    package static func hookCrashed(_ message: String = "hook crashed") -> ParseError {
        ParseError(code: 141, message: message, httpStatus: 500)
    }

    /// Whether the error means the hook never ran to an answer of its own: its worker ended, or the
    /// pool could not take the call (circuit open, queue full, shutting down). An after hook that
    /// failed this way stays owed and is tried again.
    package var leftHookUnfinished: Bool {
        httpStatus == 503 || (httpStatus == 500 && code == 141 && message.hasPrefix("hook crashed"))
    }
}
