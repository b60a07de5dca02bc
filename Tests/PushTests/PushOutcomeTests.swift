import Cloudlet
import CloudletServer
import Foundation
import Testing

@Suite struct PushOutcomeTests {
    @Test func everyOutcomeButSentCarriesItsReason() {
        #expect(PushOutcome.sent.reason == nil)
        #expect(PushOutcome.invalidToken(reason: "Unregistered").reason == "Unregistered")
        #expect(PushOutcome.retry(reason: "TooManyRequests", retryAfter: .seconds(2)).reason == "TooManyRequests")
        #expect(PushOutcome.jobFailed(reason: "PayloadTooLarge").reason == "PayloadTooLarge")
    }
}

@Suite struct PushJobTests {
    @Test func aJobReadsBackFromItsStoredFields() throws {
        let job = PushJob(
            id: "j1", status: .scheduled, source: "rest", query: ["channels": ["$in": ["news"]]], data: ["alert": "Hi", "badge": "Increment"],
            pushTime: Date(timeIntervalSince1970: 1_800_000_000), expiration: Date(timeIntervalSince1970: 1_800_003_600), collapseId: "c")
        let stored = ParseObject(className: "_PushStatus", objectId: "j1", fields: job.fields)
        #expect(try PushJob(stored) == job)
        #expect(stored.fields["query"]?.stringValue == #"{"channels":{"$in":["news"]}}"#)
    }

    @Test func aMalformedJobNamesItsField() {
        let stored = ParseObject(className: "_PushStatus", objectId: "j1", fields: ["status": "pending", "query": "{", "payload": "{}"])
        #expect(throws: ParseError(code: 115, message: "push job has an invalid query")) { try PushJob(stored) }
    }
}
