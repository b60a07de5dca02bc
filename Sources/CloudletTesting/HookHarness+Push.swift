import Cloudlet
import CloudletRuntime

extension HookHarness {
    /// Registers a device as its SDK would (`POST /installations` with its `X-Parse-Installation-Id`):
    /// the installation rules apply, and with `user` the installation is bound to that user.
    @discardableResult
    public func install(
        installationId: String, deviceType: String = "ios", deviceToken: String? = nil, channels: [String] = [],
        badge: Int? = nil, user: String? = nil
    ) async throws -> ParseObject {
        var fields: [String: ParseValue] = [
            "installationId": .string(installationId), "deviceType": .string(deviceType),
            "channels": .array(channels.map(ParseValue.string)),
        ]
        fields["deviceToken"] = deviceToken.map(ParseValue.string)
        fields["badge"] = badge.map { .number(Double($0)) }
        var device = try await caller(user.map(Actor.user) ?? .anonymous)
        device.installationId = installationId
        return try await runtime.writes.create("_Installation", body: fields, caller: device).object
    }

    /// The push jobs recorded so far (by hooks or `POST /push`), oldest first, each with the
    /// installations it reaches now and the payload each would get. No provider is involved.
    public func pushes() async throws -> [CapturedPush] {
        let jobs = try await runtime.reads.find(ParseQuery("_PushStatus", order: ["createdAt", "objectId"], limit: 1000), caller: .harnessMaster)
        var captured: [CapturedPush] = []
        for object in jobs {
            let job = try PushJob(object)
            let recipients = PushRecipients(storage: runtime.context.stores.objects, query: job.query)
            var installations: [ParseObject] = []
            var cursor: String?
            while true {
                let page = try await recipients.page(after: cursor)
                installations += page
                guard page.count == PushRecipients.defaultPageSize, let last = page.last?.objectId else { break }
                cursor = last
            }
            captured.append(CapturedPush(job, recipients: installations))
        }
        return captured
    }
}

extension Caller {
    /// The master key, as the harness acts with it.
    static let harnessMaster = Caller(isMaster: true, requestId: "harness")
}
