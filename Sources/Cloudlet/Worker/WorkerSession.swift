import CloudletWire
import Foundation
import Logging
import NIOCore
import Synchronization

/// A worker's side of its connection to the host: runs each invocation as its own task, sends store
/// calls and log records on behalf of the hooks, and routes the host's replies back to them.
///
/// Given the event loop its connection reads on, it runs there the hooks whose last run was quick
/// (an ``InvocationExecutor`` measures each run): no hand-off to another thread between a frame and
/// its answer. The others run on Dispatch's global queue, timed the same way.
///
/// ``HookWorker`` runs one over the socket its host hands it; a test runs one over an in-memory
/// transport, with no process:
/// ```swift
/// let session = WorkerSession(registry: registry, clock: ManualClock())
/// let (host, worker) = InMemoryWire.pair()
/// worker.open(session.receiver)
/// session.start(on: worker)
/// ```
public final class WorkerSession: Sendable {
    private struct State {
        var connection: (any WireTransport)?
        /// Running invocations, for cancellation.
        var invocations: [UInt64: Task<Void, Never>] = [:]
        /// Invocations that finished before they were registered.
        var finishedEarly: Set<UInt64> = []
        var storeCalls: [UInt64: CheckedContinuation<WireOutcome, Never>] = [:]
        var nextStoreCallId: UInt64 = 1
        /// The registered hooks whose last run held a thread only briefly: they run on the event loop.
        var quickHooks: Set<HookKey> = []
    }

    /// A hook, as an invocation names it.
    private struct HookKey: Hashable {
        let kind: UInt8
        let name: String
    }

    private let registry: HookRegistry
    private let clock: any CloudletClock
    private let eventLoop: (any EventLoop)?
    private let state = Mutex(State())

    /// A session serving `registry`'s hooks, whose deadlines and sleeps follow `clock`; the quick
    /// ones run on `eventLoop`, the loop its connection reads on, if given.
    public init(registry: HookRegistry, clock: any CloudletClock, eventLoop: (any EventLoop)? = nil) {
        self.registry = registry
        self.clock = clock
        self.eventLoop = eventLoop
    }

    /// What the session does with what arrives from the host.
    public var receiver: WireReceiver {
        WireReceiver(message: receive, oversized: receiveOversized)
    }

    /// Starts serving on `connection`: announces the worker and its hooks.
    public func start(on connection: any WireTransport) {
        state.withLock { $0.connection = connection }
        let hooks = registry.summary.map(\.wire)
        connection.send(.hello(WireHello(processId: ProcessInfo.processInfo.processIdentifier, hooks: hooks)))
    }

    /// Handles one message from the host (called on the connection's event loop).
    func receive(_ message: WireMessage) {
        guard let connection = state.withLock({ $0.connection }) else { return }
        switch message {
        case .invoke(let invocation):
            // A hook whose last run was quick runs on this event loop and answers from it; the others
            // run on Dispatch's global queue (timed there too, so that a hook can be found quick), where
            // computing for long holds up neither the frames of the other calls nor the answers to
            // health checks. A quick hook that turns slow holds this loop until it ends or the host
            // kills the worker at its deadline (the other calls on it are then run again elsewhere),
            // and runs on the queue from then on.
            let hook = HookKey(kind: invocation.kind, name: invocation.name)
            let onLoop = eventLoop != nil && state.withLock { $0.quickHooks.contains(hook) }
            let executor = InvocationExecutor(eventLoop: onLoop ? eventLoop : nil)
            let task = Task(executorPreference: executor) {
                let outcome = await WireOutcome.of(jsonLimit: connection.maximumFrameBytes, tooLarge: Self.resultTooLarge) {
                    try await self.run(invocation, on: connection)
                }
                let isQuick = executor.ranQuickly && self.isRegistered(hook)
                self.state.withLock { state in
                    if state.invocations.removeValue(forKey: invocation.id) == nil { state.finishedEarly.insert(invocation.id) }
                    if isQuick {
                        state.quickHooks.insert(hook)
                    } else {
                        state.quickHooks.remove(hook)
                    }
                }
                if !connection.send(.result(id: invocation.id, outcome)) {
                    connection.send(.result(id: invocation.id, Self.resultTooLarge))
                }
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

    /// Whether `hook` is one the registry serves (only those are remembered as quick).
    private func isRegistered(_ hook: HookKey) -> Bool {
        guard let kind = HookKind(wireNumber: hook.kind) else { return false }
        return registry.registration(kind, hook.name) != nil
    }

    /// A frame from the host over the size bound: the call it belonged to is refused.
    func receiveOversized(_ head: WireFrameHead) {
        guard let connection = state.withLock({ $0.connection }) else { return }
        switch head.type {
        case .invoke:
            connection.send(.result(id: head.id, .refused(code: 141, message: "hook input too large")))
        case .storeReply:
            state.withLock { $0.storeCalls.removeValue(forKey: head.id) }?
                .resume(returning: .refused(code: 141, message: "store reply too large"))
        default:
            connection.close()
        }
    }

    /// What a hook whose result is over the frame bound answers instead.
    static let resultTooLarge = WireOutcome.refused(code: 141, message: "hook result too large")

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
            let call = WireStoreCall(id: id, invocationId: invocationId, operation: operation, asMaster: asMaster, arguments: json)
            if connection?.send(.storeCall(call)) == false {
                state.withLock { $0.storeCalls.removeValue(forKey: id) }?
                    .resume(returning: .refused(code: 141, message: "store call too large"))
            }
        }
    }

    private func run(_ invocation: WireInvocation, on connection: any WireTransport) async throws -> ParseValue {
        guard let kind = HookKind(wireNumber: invocation.kind) else {
            throw ParseError.failed("this worker knows no hook kind numbered \(invocation.kind)")
        }
        var logger = Logger(label: "cloudlet.hooks") { _ in WireLogHandler(invocationId: invocation.id, connection: connection) }
        logger.logLevel = .trace
        let context = HookContext(
            appId: invocation.appId, requestId: invocation.requestId, user: invocation.userId.map { HookUser(id: $0, roles: invocation.roles) },
            isMaster: invocation.isMaster, installationId: invocation.installationId,
            deadline: Date(timeIntervalSince1970: Double(invocation.deadlineMilliseconds) / 1000), eventId: invocation.eventId,
            logger: logger, store: RemoteHookStore(session: self, invocationId: invocation.id, isMaster: invocation.isMaster),
            clock: clock)
        let call = HookRegistry.Call(
            input: try ParseValue(json: invocation.input), original: try invocation.original.map { try ParseValue(json: $0) },
            context: context)
        return try await registry.run(kind, invocation.name, call)
    }
}
