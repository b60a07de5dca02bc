import Cloudlet
import CloudletWire

/// A store call a worker's hook made, to be served through its invocation's store and answered on
/// the worker's connection.
struct StoreCallRequest: Sendable {
    let call: WireStoreCall
    let store: any HookStore
    let connection: (any WireTransport)?

    /// Serves the call and sends its reply (which a closed connection drops).
    func serve() async {
        let outcome = await WireOutcome.of { try await StoreCallServer.serve(call, store: store) }
        connection?.send(.storeReply(id: call.id, outcome))
    }
}

extension WorkerPool {
    /// Hands a store call that arrived from a worker to ``run()``, which serves it; once the pool has
    /// stopped, answers it at once that the server is shutting down.
    func enqueue(_ request: StoreCallRequest) {
        if case .terminated = storeCalls.continuation.yield(request) {
            request.connection?.send(.storeReply(id: request.call.id, .failed(description: "the server is shutting down")))
        }
    }

    /// Serves the workers' store calls, each in a child task of its own (a hook may make several at
    /// once, and one that waits holds up no other), until the pool stops; returns once every call
    /// taken has been answered. Cancelling it cancels the calls in flight.
    ///
    /// A call starts on the thread this task wakes on, as an unstructured task would: taking it from
    /// the stream costs no thread hand-off of its own. It runs there until it first waits (its read
    /// or write), so calls that arrive together start one after another but wait together. (Before
    /// macOS 26, which lacks immediate child tasks, each call starts as a child task of its own.)
    func serveStoreCalls() async {
        await withDiscardingTaskGroup { group in
            for await request in storeCalls.stream {
                if #available(macOS 26, *) {
                    group.addImmediateTask { await request.serve() }
                } else {
                    group.addTask { await request.serve() }
                }
            }
        }
    }
}
