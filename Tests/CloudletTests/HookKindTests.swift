import Cloudlet
import Foundation
import Testing

@Suite("Hook kinds as one table")
struct HookKindTests {
    @Test func everyKindHasItsOwnWireNumberAndIsFoundByIt() {
        let numbers = HookKind.allCases.map(\.definition.wireNumber)
        #expect(Set(numbers).count == numbers.count)
        #expect(!numbers.contains(0), "0 is no kind on the wire")
        for kind in HookKind.allCases {
            #expect(HookKind(wireNumber: kind.definition.wireNumber) == kind)
        }
        #expect(HookKind(wireNumber: 0) == nil)
        #expect(HookKind(wireNumber: 255) == nil)
    }

    @Test func aRegistrationTakesItsKindsDefaultTimeLimitUnlessItSetsOne() {
        var hooks = HookRegistry()
        for kind in HookKind.allCases {
            hooks.register(kind, "Target") { call in call.input }
        }
        for kind in HookKind.allCases {
            #expect(hooks.registration(kind, "Target")?.timeLimit == kind.definition.defaultTimeLimit)
        }
        hooks.register(.afterSave, "Target", timeLimit: .milliseconds(500)) { _ in nil }
        #expect(hooks.registration(.afterSave, "Target")?.timeLimit == .milliseconds(500))
    }

    @Test func theOneDispatchAnswersWhatTheKindReturns() async throws {
        var hooks = HookRegistry()
        // Every handler answers its input; only kinds that return something pass it on.
        for kind in HookKind.allCases {
            hooks.register(kind, "Target") { call in call.input }
        }
        let input: ParseValue = ["title": "x"]
        for kind in HookKind.allCases {
            let answer = try await hooks.run(kind, "Target", HookRegistry.Call(input: input, context: .forTests()))
            #expect(answer == (kind.definition.returns == .nothing ? .null : input), "\(kind)")
        }
    }

    @Test func runningAHookThatIsNotThereIsRefusedWith141() async throws {
        let hooks = HookRegistry()
        await #expect(throws: ParseError.self) {
            try await hooks.run(.beforeSave, "Nobody", HookRegistry.Call(input: [:], context: .forTests()))
        }
    }

    @Test func anAfterHookSaysWhetherTheResponseWaitsForIt() {
        var hooks = HookRegistry()
        hooks.afterSave("Waited") { _ in }
        hooks.afterSave("Later", runs: .afterResponse) { _ in }
        #expect(hooks.registration(.afterSave, "Waited")?.runs == .beforeResponse)
        #expect(hooks.registration(.afterSave, "Later")?.summary.runs == .afterResponse)
    }
}

extension HookContext {
    /// A context for calling a registry directly, with a store no test here uses.
    static func forTests() -> HookContext {
        HookContext(
            appId: "test", requestId: "r1", user: nil, isMaster: true, installationId: nil, deadline: .distantFuture, eventId: nil,
            logger: .init(label: "test"), store: NoStore(), clock: FixedClock())
    }
}

private struct NoStore: HookStore {
    func get(_ className: String, id: String) async throws -> ParseObject? { nil }
    func find(_ query: ParseQuery) async throws -> [ParseObject] { [] }
    func count(_ query: ParseQuery) async throws -> Int { 0 }
    func save(_ object: ParseObject) async throws -> ParseObject { object }
    func delete(_ className: String, id: String) async throws {}
    func call(_ name: String, params: [String: ParseValue]) async throws -> ParseValue { nil }
    var asMaster: any HookStore { self }
}

private struct FixedClock: CloudletClock {
    struct NoAlarm: ClockAlarm {
        func cancel() {}
    }

    var now: Date { Date(timeIntervalSince1970: 1_800_000_000) }
    func schedule(at deadline: Date, _ action: @escaping @Sendable () -> Void) -> any ClockAlarm { NoAlarm() }
}
