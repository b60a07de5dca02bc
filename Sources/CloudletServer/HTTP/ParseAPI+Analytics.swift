import Cloudlet
import Foundation

extension ParseAPI {
    /// `POST /events/:eventName` with any key (Parse's analytics: `AppOpened` and custom events with
    /// `dimensions`): accepted and answered `{}`, as Parse Server's default adapter does, and counted
    /// per app and event name in `cloudlet_analytics_events_total` (names past the per-app cap
    /// count as `other`). Nothing is stored.
    func trackEvent(_ call: ParseCall) throws -> Reply {
        let name = try call.parameter("eventName")
        call.app.runtime.context.metrics?.analyticsEventTracked(app: call.app.id, event: name.removingPercentEncoding ?? name)
        return Reply(body: [:])
    }
}
