import Testing

@testable import CloudletRuntime
@testable import CloudletServer

/// The push delivery loop's claims: one at a time, none after a short claim until deliveries may
/// have become due, counting what happened while the claim ran.
@Suite struct ClaimGateTests {
    @Test func oneClaimAtATimeAndAFullClaimAllowsTheNext() {
        var gate = ClaimGate()
        #expect(gate.mayStart)
        gate.started()
        #expect(!gate.mayStart)
        gate.ended(full: true)
        #expect(gate.mayStart)
    }

    @Test func aShortClaimStopsClaimsUntilDeliveriesMayBeDue() {
        var gate = ClaimGate()
        gate.started()
        gate.ended(full: false)
        #expect(!gate.mayStart)
        gate.deliveriesMayBeDue()
        #expect(gate.mayStart)
    }

    @Test func deliveriesThatBecameDueDuringAShortClaimAllowTheNext() {
        var gate = ClaimGate()
        gate.started()
        gate.deliveriesMayBeDue()
        #expect(!gate.mayStart)
        gate.ended(full: false)
        #expect(gate.mayStart)
        gate.started()
        gate.ended(full: false)
        #expect(!gate.mayStart)
    }
}
