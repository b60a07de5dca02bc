import Cloudlet
import Foundation
import Testing

@Suite("Hook registration")
struct HookRegistryTests {
    @Test func registersEachKindWithItsDefaultTimeLimit() {
        var hooks = HookRegistry()
        hooks.beforeSave("Posts") { _ in }
        hooks.afterSave("Posts") { _ in }
        hooks.beforeDelete("Posts", timeLimit: .seconds(1)) { _ in }
        hooks.afterDelete("Posts") { _ in }
        hooks.function("hello") { _ in "hi" }
        #expect(hooks.registration(.beforeSave, "Posts")?.timeLimit == .seconds(3))
        #expect(hooks.registration(.beforeDelete, "Posts")?.timeLimit == .seconds(1))
        #expect(hooks.registration(.function, "hello")?.timeLimit == .seconds(15))
        #expect(hooks.summary.map(\.kind) == [.afterDelete, .afterSave, .beforeDelete, .beforeSave, .function])
    }

    @Test func findAndLoginKindsRegisterWithTheirBindingsAndLimits() {
        var hooks = HookRegistry()
        hooks.beforeFind("Posts") { _ in }
        hooks.afterFind("Posts", timeLimit: .seconds(1)) { _ in }
        hooks.beforeLogin { _ in }
        hooks.afterLogin { _ in }
        hooks.afterLogout { _ in }
        #expect(hooks.registration(.beforeFind, "Posts")?.timeLimit == .seconds(3))
        #expect(hooks.registration(.afterFind, "Posts")?.timeLimit == .seconds(1))
        #expect(hooks.registration(.beforeFind, "Other") == nil)
        #expect(hooks.registration(.beforeLogin, "anything")?.name == "", "a kind bound to nothing ignores the name")
        #expect(Set(hooks.summary.map(\.kind)) == [.beforeFind, .afterFind, .beforeLogin, .afterLogin, .afterLogout])
    }

    @Test func aLaterRegistrationReplacesAnEarlierOne() {
        var hooks = HookRegistry()
        hooks.function("f", timeLimit: .seconds(1)) { _ in 1 }
        hooks.function("f", timeLimit: .seconds(2)) { _ in 2 }
        #expect(hooks.summary.count == 1)
        #expect(hooks.registration(.function, "f")?.timeLimit == .seconds(2))
    }

    @Test func parseCodingReadsAndWritesParseDates() throws {
        struct Event: Codable, Equatable { var name: String; var at: Date }
        let event = Event(name: "launch", at: Date(timeIntervalSince1970: 1_767_225_600))
        let value = try ParseCoding.encode(event)
        #expect(value["at"] == ["__type": "Date", "iso": "2026-01-01T00:00:00.000Z"])
        #expect(try ParseCoding.decode(Event.self, from: value) == event)
        let fromString = try ParseCoding.decode(Event.self, from: ["name": "x", "at": "2026-01-01T00:00:00.000Z"])
        #expect(fromString.at == event.at)
    }
}
