import CloudletWire
import NIOCore

extension ParseValue {
    /// Parses a JSON payload carried by a wire message.
    package init(json buffer: ByteBuffer) throws {
        self = try JSONParser.parse(buffer.readableBytesView)
    }

    /// The value's JSON, as a wire message carries it.
    package var jsonBuffer: ByteBuffer {
        ByteBuffer(bytes: JSONWriter.bytes(self))
    }
}

extension HookRegistry.Summary {
    /// The hook as a worker announces it in its hello.
    package var wire: WireHello.Hook {
        WireHello.Hook(
            kind: kind.definition.wireNumber, name: name, timeLimitMilliseconds: Int64(timeLimit / .milliseconds(1)),
            rateLimit: rateLimit.map {
                WireHello.RateLimit(
                    scope: UInt8(RateLimitZone.allCases.firstIndex(of: $0.scope)! + 1), count: UInt32(clamping: $0.count),
                    windowMilliseconds: Int64($0.window / .milliseconds(1)))
            }, runsAfterResponse: runs == .afterResponse)
    }

    /// The hook a worker announced, or nil for a kind this host does not know.
    package init?(_ wire: WireHello.Hook) {
        guard let kind = HookKind(wireNumber: wire.kind) else { return nil }
        let scopes = RateLimitZone.allCases
        self.init(
            kind: kind, name: wire.name, timeLimit: .milliseconds(wire.timeLimitMilliseconds),
            rateLimit: wire.rateLimit.flatMap { limit in
                (1...scopes.count).contains(Int(limit.scope))
                    ? HookRateLimit(
                        scope: scopes[Int(limit.scope) - 1], count: Int(limit.count), window: .milliseconds(limit.windowMilliseconds))
                    : nil
            }, runs: wire.runsAfterResponse ? .afterResponse : .beforeResponse)
    }
}

extension WireOutcome {
    /// The outcome of running `operation`: its value, a Parse error as it is, or any other error's
    /// description (for the log only).
    package static func of(_ operation: () async throws -> ParseValue) async -> WireOutcome {
        await of(jsonLimit: .max, tooLarge: .failed(description: "a value over Int.max bytes"), operation)
    }

    /// As ``of(_:)``, but `tooLarge` if the value's JSON is more than `jsonLimit` bytes: writing
    /// stops there, so a value far over the limit costs no more than the limit.
    package static func of(
        jsonLimit: Int, tooLarge: WireOutcome, _ operation: () async throws -> ParseValue
    ) async -> WireOutcome {
        do {
            guard let json = JSONWriter.bytes(try await operation(), limit: jsonLimit) else { return tooLarge }
            return .success(json: ByteBuffer(bytes: json))
        } catch let error as ParseError {
            return .refused(code: Int32(clamping: error.code), message: error.message)
        } catch {
            return .failed(description: String(reflecting: error))
        }
    }

    /// The value of a successful outcome; a refusal throws its ``ParseError``, a failure throws
    /// ``RemoteFailure``.
    package func value() throws -> ParseValue {
        switch self {
        case .success(let json): return try ParseValue(json: json)
        case .refused(let code, let message): throw ParseError(code: Int(code), message: message)
        case .failed(let description): throw RemoteFailure(description: description)
        }
    }
}

/// An error on the other side of a wire connection that is not a ``ParseError``: its description is
/// for logs, never for a client.
package struct RemoteFailure: Error, Sendable, CustomStringConvertible {
    /// What went wrong, as the other side described it.
    package let description: String
}
