import Cloudlet

extension AfterSaveRequest {
    /// Records `notification` as a push job unless this hook already did: an after hook runs at
    /// least once, and a replay after a crash must not alert anyone twice. The job carries the
    /// hook's `eventId`, which stays the same on a replay.
    func pushOnce(_ notification: PushNotification) async throws {
        if let eventId = context.eventId,
            try await context.store.asMaster.count(ParseQuery("_PushStatus").whereKey("eventId", equalTo: .string(eventId))) > 0
        {
            return
        }
        try await push(notification)
    }
}
