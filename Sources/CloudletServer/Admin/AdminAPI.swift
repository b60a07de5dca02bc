import Cloudlet
import HTTPTypes
import Hummingbird
import NIOCore

/// The operator's admin API under `/admin`: the app registry over HTTP, JSON in and out, errors as
/// Parse `{code, error}`. Every route is added to a group that ``OperatorKeyMiddleware`` guards, so
/// it needs the operator key (never an app's key):
///
/// | Route | Does |
/// |---|---|
/// | `GET /admin/apps` | lists the apps |
/// | `POST /admin/apps` | creates one (`{"id": "shop", "workers": 2, ...}`), answering its keys once |
/// | `GET|PUT|DELETE /admin/apps/:id` | shows, changes, deletes one |
/// | `POST /admin/apps/:id/keys/:kind/rotate` | new `client` or `master` key; the old one stays valid |
/// | `POST /admin/apps/:id/keys/:kind/retire` | the old (retiring) keys of that kind stop being valid |
///
/// A change is in effect when its answer arrives.
struct AdminAPI: Sendable {
    let registry: AppRegistry
    let supervisor: AppSupervisor
    /// Largest request body of the admin API.
    static let maximumBodyBytes = 64 << 10

    /// Adds the routes to `admin`, the `/admin` group behind the operator key.
    func addRoutes(to admin: RouterGroup<CloudletRequestContext>) {
        let apps = admin.group("apps")
        apps.get { _, _ in
            JSONResponse.make(status: .ok, body: ["results": .array(try await registry.list().map(\.json))])
        }
        apps.post { request, _ in
            var body = try await readBody(request)
            let id = try take("id", from: &body) ?? ""
            let clientKey = try take("clientKey", from: &body), masterKey = try take("masterKey", from: &body)
            let settings = try settings(AppSettings(), changedBy: body)
            let created = try await registry.create(id, settings: settings, clientKey: clientKey, masterKey: masterKey)
            try await apply(id, scheduling: Set(settings.jobSchedules.keys), undo: { try await registry.delete(id) })
            var answer = created.record.json.objectValue ?? [:]
            answer["clientKey"] = .string(created.clientKey)
            answer["masterKey"] = .string(created.masterKey)
            return JSONResponse.make(status: .created, body: .object(answer))
        }
        apps.get(":id") { _, context in
            let id = try context.parameters.require("id")
            guard let record = try await registry.app(id) else { throw AppRegistry.notFound(id) }
            return JSONResponse.make(status: .ok, body: record.json)
        }
        apps.put(":id") { request, context in
            let body = try await readBody(request)
            let id = try context.parameters.require("id")
            guard let previous = try await registry.app(id)?.settings else { throw AppRegistry.notFound(id) }
            let record = try await registry.update(id) { $0 = try settings($0, changedBy: body) }
            let scheduled = Set(record.settings.jobSchedules.keys).subtracting(previous.jobSchedules.keys)
            try await apply(id, scheduling: scheduled, undo: { try await registry.update(id) { $0 = previous } })
            return JSONResponse.make(status: .ok, body: record.json)
        }
        apps.delete(":id") { _, context in
            try await registry.delete(try context.parameters.require("id"))
            await supervisor.reload()
            return JSONResponse.make(status: .ok, body: [:])
        }
        apps.post(":id/keys/:kind/rotate") { _, context in
            let (id, kind) = try keyRoute(context)
            let key = try await registry.rotateKey(of: id, kind)
            await supervisor.reload()
            return JSONResponse.make(status: .ok, body: ["app": .string(id), "kind": .string(kind.rawValue), "key": .string(key)])
        }
        apps.post(":id/keys/:kind/retire") { _, context in
            let (id, kind) = try keyRoute(context)
            let retired = try await registry.retireKeys(of: id, kind)
            await supervisor.reload()
            return JSONResponse.make(status: .ok, body: ["retired": .number(Double(retired))])
        }
    }

    /// Applies the registry change just made to app `id`, which newly schedules `jobs`; if the server
    /// refuses it (a hook over the cap, an executable that does not start) or the app's hooks define
    /// no job of one of those names, undoes it and throws why.
    private func apply(_ id: String, scheduling jobs: Set<String> = [], undo: () async throws -> Void) async throws {
        var failure = await supervisor.reload()[id]
        if failure == nil, !jobs.isEmpty, let manifest = supervisor.manifests.first(where: { $0.appId == id }) {
            do { try manifest.checkJobsExist(jobs) } catch { failure = error }
        }
        guard let failure else { return }
        try await undo()
        await supervisor.reload()
        throw failure as? ParseError ?? ParseError(code: 1, message: "app \(id) could not be started", httpStatus: 500)
    }

    private func keyRoute(_ context: CloudletRequestContext) throws -> (String, AppKeyKind) {
        let kind = try context.parameters.require("kind")
        guard let parsed = AppKeyKind(rawValue: kind) else { throw AppSettings.invalid("the key kind is client or master, not \(kind)") }
        return (try context.parameters.require("id"), parsed)
    }

    /// `settings` with the members of `body` applied; any other member is refused by name.
    private func settings(_ settings: AppSettings, changedBy body: [String: ParseValue]) throws -> AppSettings {
        if let unknown = body.keys.sorted().first(where: { !AppSettings.memberNames.contains($0) }) {
            throw AppSettings.invalid("unknown member \(unknown)")
        }
        return try settings.applying(body)
    }

    private func take(_ name: String, from body: inout [String: ParseValue]) throws -> String? {
        guard let value = body.removeValue(forKey: name) else { return nil }
        guard let text = value.stringValue, !text.isEmpty, text.utf8.count <= 256 else {
            throw AppSettings.invalid("\(name) must be text of 1 to 256 bytes")
        }
        return text
    }

    private func readBody(_ request: Request) async throws -> [String: ParseValue] {
        var request = request
        let buffer: ByteBuffer
        do {
            buffer = try await request.collectBody(upTo: Self.maximumBodyBytes)
        } catch is NIOTooManyBytesError {
            throw ParseError(code: 116, message: "request body is larger than \(Self.maximumBodyBytes) bytes", httpStatus: 413)
        }
        guard buffer.readableBytes > 0 else { return [:] }
        guard let members = try? buffer.withUnsafeReadableBytes({ try JSONParser.parse($0) }).objectValue else {
            throw ParseError.invalidJSON("the body must be a JSON object")
        }
        return members
    }
}
