import Foundation
import Testing

@testable import CloudletRuntime

/// When a work loop claims: only when work may be there to take, since a claim is a write.
@Suite struct ClaimScheduleTests {
    let now = Date(timeIntervalSince1970: 1_000)

    @Test func theFirstTurnClaimsAndAQuietQueueIsNotClaimedAgain() {
        var claims = ClaimSchedule()
        #expect(claims.isDue(at: now, queued: 0))
        claims.claimed(queued: 0, filledRoom: false, nextDue: nil)
        #expect(!claims.isDue(at: now + 60, queued: 0), "no signal, nothing due: no claim")
    }

    @Test func workQueuedSinceTheClaimBeganIsClaimed() {
        var claims = ClaimSchedule()
        claims.claimed(queued: 3, filledRoom: false, nextDue: nil)
        #expect(claims.isDue(at: now, queued: 4))
    }

    @Test func theEarliestRowFallingDueIsClaimedThenNotBefore() {
        var claims = ClaimSchedule()
        claims.claimed(queued: 0, filledRoom: false, nextDue: now + 5)
        #expect(!claims.isDue(at: now + 4.9, queued: 0))
        #expect(claims.isDue(at: now + 5, queued: 0))
        #expect(claims.nextDue == now + 5)
    }

    @Test func aClaimThatFilledItsRoomClaimsAgainAtTheNextTurn() {
        var claims = ClaimSchedule()
        claims.claimed(queued: 0, filledRoom: true, nextDue: nil)
        #expect(claims.isDue(at: now, queued: 0), "more may be due behind what it took")
    }

    @Test func rowsTheLoopMadeDueAgainAreClaimed() {
        var claims = ClaimSchedule()
        claims.claimed(queued: 0, filledRoom: false, nextDue: nil)
        claims.rowsChanged()
        #expect(claims.isDue(at: now, queued: 0))
    }

    @Test func aFailedClaimIsTriedAgainAtItsRetryOrOnNewWork() {
        var claims = ClaimSchedule()
        claims.claimed(queued: 2, filledRoom: false, nextDue: now + 1)
        #expect(!claims.isDue(at: now, queued: 2))
        #expect(claims.isDue(at: now + 1, queued: 2))
        #expect(claims.isDue(at: now, queued: 3))
    }
}
