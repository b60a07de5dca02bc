import Cloudlet
import HTTPTypes
import Hummingbird
import NIOCore

/// The routes an operator's tools call: `GET /health` (the process is alive; no key),
/// `GET /ready` (every app's workers are up: 200, else 503 naming the apps that are not) and
/// `GET /metrics` (Prometheus text; needs the operator key, which Prometheus sends as
/// `Authorization: Bearer <key>`).
struct OperationsRoutes {
    let apps: AppDirectory
    let metrics: CloudletMetrics
    let operatorKey: OperatorKeyGuard
    /// The REST API's mount path: when it is the root, `<mount>/health` already answers `/health`.
    let mountPath: String

    func add(to router: Router<CloudletRequestContext>) {
        if !mountPath.isEmpty {
            router.get("health") { _, _ in JSONResponse.make(status: .ok, body: ["status": "ok"]) }
        }
        router.get("ready") { _, _ in ready() }
        router.get("metrics") { request, context in
            try operatorKey.authorize(request, context: context)
            return scrape()
        }
    }

    private func ready() -> Response {
        let notReady = apps.all.filter { !$0.runtime.executor.isReady }.map(\.id).sorted()
        guard notReady.isEmpty else {
            return JSONResponse.make(status: .serviceUnavailable, body: ["status": "not ready", "notReady": .array(notReady.map(ParseValue.string))])
        }
        return JSONResponse.make(status: .ok, body: ["status": "ready"])
    }

    private func scrape() -> Response {
        for app in apps.all {
            metrics.sample(app: app.id, queueDepth: app.runtime.executor.queuedInvocations, isReady: app.runtime.executor.isReady)
        }
        return Response(
            status: .ok, headers: [.contentType: "text/plain; version=0.0.4; charset=utf-8"],
            body: .init(byteBuffer: ByteBuffer(bytes: metrics.exposition())))
    }
}
