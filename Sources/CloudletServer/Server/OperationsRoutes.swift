import Cloudlet
import CloudletPostgres
import CloudletRuntime
import HTTPTypes
import Hummingbird
import NIOCore

/// The routes an operator's tools call: `GET /health` (the process is alive; no key),
/// `GET /ready` (every app's workers are up, the data folder's disk is above its free-space floor
/// and the shared database, if any, is reached: 200, else 503 naming the apps that are not ready
/// and saying `lowDisk` or `databaseUnreachable`) and
/// `GET /metrics` (Prometheus text; needs the operator key, which Prometheus sends as
/// `Authorization: Bearer <key>`).
struct OperationsRoutes {
    let apps: AppDirectory
    let metrics: CloudletMetrics
    let operatorKey: OperatorKeyGuard
    /// The REST API's mount path: when it is the root, `<mount>/health` already answers `/health`.
    let mountPath: String
    /// The free space kept on the data folder's disk, below which uploads stop.
    let diskFloor: FreeDiskFloor
    /// The database the nodes share, if the apps' data is in PostgreSQL.
    let database: PostgresDatabase?

    func add(to router: Router<CloudletRequestContext>) {
        if !mountPath.isEmpty {
            router.get("health") { _, _ in JSONResponse.make(status: .ok, body: ["status": "ok"]) }
        }
        router.get("ready") { _, _ in ready() }
        router.group("metrics").add(middleware: OperatorKeyMiddleware(operatorKey: operatorKey)).get { _, _ in scrape() }
    }

    private func ready() -> Response {
        let notReady = apps.all.filter { !$0.runtime.context.executor.isReady }.map(\.id).sorted()
        let isDiskLow = diskFloor.isLow
        let isDatabaseUnreachable = database.map { !$0.isListening } ?? false
        guard notReady.isEmpty, !isDiskLow, !isDatabaseUnreachable else {
            var body: [String: ParseValue] = ["status": "not ready", "notReady": .array(notReady.map(ParseValue.string))]
            if isDatabaseUnreachable { body["databaseUnreachable"] = true }
            if isDiskLow {
                body["lowDisk"] = [
                    "freeBytes": .number(Double(diskFloor.freeBytes() ?? 0)), "floorBytes": .number(Double(diskFloor.floorBytes)),
                ]
            }
            return JSONResponse.make(status: .serviceUnavailable, body: .object(body))
        }
        return JSONResponse.make(status: .ok, body: ["status": "ready"])
    }

    private func scrape() -> Response {
        for app in apps.all {
            let executor = app.runtime.context.executor
            metrics.sample(app: app.id, queueDepth: executor.queuedInvocations, isReady: executor.isReady)
        }
        return Response(
            status: .ok, headers: [.contentType: "text/plain; version=0.0.4; charset=utf-8"],
            body: .init(byteBuffer: ByteBuffer(bytes: metrics.exposition())))
    }
}
