import CloudletWire
import Foundation
import Logging
import Synchronization

/// A worker's side of its connection to the host: runs each invocation as its own task, sends store
/// calls and log records on behalf of the hooks, and routes the host's replies back to them.
final class WorkerSession: Sendable {
    private struct State {
        var connection: WireConnection?
        /// Running invocations, for cancellation.
        var invocations: [UInt64: Task<Void, Never>] = [:]
        /// Invocations that finished before they were registered.
        var finishedEarly: Set<UInt64> = []
        var storeCalls: [UInt64: CheckedContinuation<WireOutcome, Never>] = [:]
        var nextStoreCallId: UInt64 = 1
    }

    private let registry: HookRegistry
    private let clock: any CloudletClock
    private let state = Mutex(State())

    init(registry: HookRegistry, clock: any CloudletClock) {
        self.registry = registry
        self.clock = clock
    }

    /// Starts serving on `connection`: announces the worker and its hooks.
    func start(on connection: WireConnection) {
        state.withLock { $0.connection = connection }
        let hooks = registry.summary.map(\.wire)
        connection.send(.hello(WireHello(processId: ProcessInfo.processInfo.processIdentifier, hooks: hooks)))
    }

    /// Handles one message from the host (called on the connection's event loop).
    func receive(_ message: WireMessage) {
        guard let connection = state.withLock({ $0.connection }) else { return }
        switch message {
        case .invoke(let invocation):
            // The hook starts on this thread and runs here until it first suspends, so that a hook
            // that does not wait answers without a hop to another thread and back.
            let task = Task.immediate {
                let outcome = await WireOutcome.of { try await self.run(invocation, on: connection) }
                self.state.withLock { state in
                    if state.invocations.removeValue(forKey: invocation.id) == nil { state.finishedEarly.insert(invocation.id) }
                }
                connection.send(.result(id: invocation.id, outcome))
            }
            state.withLock { state in
                if state.finishedEarly.remove(invocation.id) == nil { state.invocations[invocation.id] = task }
            }
        case .storeReply(let id, let outcome):
            state.withLock { $0.storeCalls.removeValue(forKey: id) }?.resume(returning: outcome)
        case .cancel(let id):
            state.withLock { $0.invocations[id] }?.cancel()
        case .ping(let id):
            connection.send(.pong(id: id))
        case .hello, .result, .storeCall, .log, .pong:
            connection.close()
        }
    }

    /// Sends a store call for `invocationId` and waits for the host's reply.
    func storeCall(
        invocationId: UInt64, operation: WireStoreOperation, asMaster: Bool, arguments: ParseValue
    ) async -> WireOutcome {
        let json = arguments.jsonBuffer
        return await withCheckedContinuation { continuation in
            let (connection, id) = state.withLock { state in
                let id = state.nextStoreCallId
                state.nextStoreCallId += 1
                state.storeCalls[id] = continuation
                return (state.connection, id)
            }
            connection?.send(
                .storeCall(WireStoreCall(id: id, invocationId: invocationId, operation: operation, asMaster: asMaster, arguments: json)))
        }
    }

    private func run(_ invocation: WireInvocation, on connection: WireConnection) async throws -> ParseValue {
        let kind = HookKind(invocation.kind)
        var logger = Logger(label: "cloudlet.hooks") { _ in WireLogHandler(invocationId: invocation.id, connection: connection) }
        logger.logLevel = .trace
        let context = HookContext(
            appId: invocation.appId, requestId: invocation.requestId, user: invocation.userId.map(HookUser.init(id:)),
            isMaster: invocation.isMaster, installationId: invocation.installationId,
            deadline: Date(timeIntervalSince1970: Double(invocation.deadlineMilliseconds) / 1000), eventId: invocation.eventId,
            logger: logger, store: RemoteHookStore(session: self, invocationId: invocation.id, isMaster: invocation.isMaster),
            clock: clock)
        return try await registry.run(
            kind, invocation.name, input: try ParseValue(json: invocation.input),
            original: try invocation.original.map { try ParseValue(json: $0) }, context: context)
    }
}
