import Cloudlet
import Foundation
import Testing

@testable import CloudletIsolation
@testable import CloudletRuntime
@testable import CloudletSQLite
@testable import CloudletServer

/// The backoff of after hooks whose worker ended under them, on hand-fed time.
@Suite struct AfterHookRetriesTests {
    private let start = Date(timeIntervalSince1970: 1_000)
    private let event = OutboxEvent(kind: .afterSave, object: ParseObject(className: "Note"), original: nil, caller: Caller(isMaster: true, requestId: "r"))

    @Test func aFailedHookIsDueAgainAfterADelayThatDoublesUpToTheMaximum() {
        var retries = AfterHookRetries(base: .seconds(1), maximum: .seconds(3))
        #expect(retries.failed(event, at: start) == start + 1)
        #expect(retries.takeDue(at: start + 0.5).isEmpty)
        #expect(retries.takeDue(at: start + 1) == [event])
        #expect(retries.takeDue(at: start + 1).isEmpty, "a running retry is not handed out twice")
        #expect(retries.failed(event, at: start + 1) == start + 3)
        _ = retries.takeDue(at: start + 3)
        #expect(retries.failed(event, at: start + 3) == start + 6, "capped at the maximum")
    }

    @Test func aHookThatRanToItsEndIsNoLongerOwed() {
        var retries = AfterHookRetries()
        retries.failed(event, at: start)
        _ = retries.takeDue(at: start + 10)
        retries.succeeded(event.id)
        #expect(retries.count == 0)
        #expect(retries.takeDue(at: start + 1000).isEmpty)
    }
}
