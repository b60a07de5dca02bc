import Cloudlet
import CloudletServer
import CloudletServerTesting
import CloudletTesting
import Synchronization
import Testing

/// A gate a hook waits at until the test opens it.
final class HookGate: Sendable {
    private let state = Mutex<(open: Bool, waiters: [CheckedContinuation<Void, Never>])>((false, []))

    /// Waits until ``open()``.
    func wait() async {
        await withCheckedContinuation { continuation in
            let isOpen = state.withLock { state in
                if !state.open { state.waiters.append(continuation) }
                return state.open
            }
            if isOpen { continuation.resume() }
        }
    }

    /// Lets every waiter (and every later one) through.
    func open() {
        for waiter in state.withLock({ state in
            state.open = true
            defer { state.waiters = [] }
            return state.waiters
        }) { waiter.resume() }
    }
}

@Suite("After hooks after the response")
struct AfterResponseTests {
    @Test func theClientDoesNotWaitForAnAfterResponseHookWhichStillRunsOnce() async throws {
        let gate = HookGate()
        let ran = HookLog()
        var registry = HookRegistry()
        registry.afterSave("Posts", runs: .afterResponse) { request in
            await gate.wait()
            ran.append(request.object.objectId ?? "")
        }
        try await ParseTestClient.withRouter(registry: registry) { client in
            // The hook is held at the gate: the save answers anyway.
            let created = try await client.post("/classes/Posts", ["title": "a"])
            #expect(created.status == 201)
            #expect(ran.all.isEmpty)
            gate.open()
            let id = try #require(created["objectId"]?.stringValue)
            try await Support.eventually { ran.all == [id] }
        }
    }

    @Test func byDefaultTheResponseWaitsForTheAfterHook() async throws {
        let ran = HookLog()
        var registry = HookRegistry()
        registry.afterSave("Posts") { request in
            try await Task.sleep(for: .milliseconds(50))
            ran.append(request.object.objectId ?? "")
        }
        try await ParseTestClient.withRouter(registry: registry) { client in
            let created = try await client.post("/classes/Posts", ["title": "a"])
            #expect(ran.all == [try #require(created["objectId"]?.stringValue)])
        }
    }

    @Test func anAfterResponseDeleteHookRunsToo() async throws {
        let gate = HookGate()
        let ran = HookLog()
        var registry = HookRegistry()
        registry.afterDelete("Posts", runs: .afterResponse) { request in
            await gate.wait()
            ran.append(request.object.objectId ?? "")
        }
        try await ParseTestClient.withRouter(registry: registry) { client in
            let id = try await Support.create(client, "Posts", ["title": "a"])
            #expect(try await client.delete("/classes/Posts/\(id)").status == 200)
            #expect(ran.all.isEmpty)
            gate.open()
            try await Support.eventually { ran.all == [id] }
        }
    }
}
