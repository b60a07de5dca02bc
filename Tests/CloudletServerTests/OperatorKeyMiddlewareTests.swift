import Cloudlet
import CloudletTesting
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Testing

@testable import CloudletIsolation
@testable import CloudletRuntime
@testable import CloudletSQLite
@testable import CloudletServer

@Suite("The operator key is checked by one middleware, not by each route")
struct OperatorKeyMiddlewareTests {
    /// A router whose `/admin/probe` route answers 200 and never looks at a key itself.
    static func probeRouter(key: OperatorKey?) -> Router<CloudletRequestContext> {
        let router = Router(context: CloudletRequestContext.self)
        router.add(middleware: ParseErrorMiddleware())
        let guarded = router.group("admin").add(
            middleware: OperatorKeyMiddleware(operatorKey: OperatorKeyGuard(key: key, clock: ManualClock())))
        guarded.get("probe") { _, _ in JSONResponse.make(status: .ok, body: ["reached": true]) }
        return router
    }

    @Test func aRouteBehindTheMiddlewareIsReachedOnlyWithTheOperatorKey() async throws {
        try await Application(router: Self.probeRouter(key: OperatorKey("secret"))).test(.router) { client in
            for headers: HTTPFields in [[:], [OperatorKey.header: "wrong"], [.authorization: "Bearer wrong"]] {
                let refused = try await client.executeRequest(uri: "/admin/probe", method: .get, headers: headers, body: nil)
                #expect(refused.status == .unauthorized)
                #expect(String(buffer: refused.body).contains(#""code":119"#))
            }
            for headers: HTTPFields in [[OperatorKey.header: "secret"], [.authorization: "Bearer secret"]] {
                let opened = try await client.executeRequest(uri: "/admin/probe", method: .get, headers: headers, body: nil)
                #expect(opened.status == .ok)
            }
        }
    }

    @Test func withNoOperatorKeyConfiguredEveryRequestIsRefused() async throws {
        try await Application(router: Self.probeRouter(key: nil)).test(.router) { client in
            for headers: HTTPFields in [[OperatorKey.header: ""], [:]] {
                let refused = try await client.executeRequest(uri: "/admin/probe", method: .get, headers: headers, body: nil)
                #expect(refused.status == .unauthorized)
            }
        }
    }

    @Test func theHookLogsAndMetricsAreBehindItToo() async throws {
        try await ObservedServer.with { server in
            for path in ["/admin/apps/a/logs", "/admin/apps", "/metrics"] {
                let withoutKey = try await server.get(path)
                let withAppKey = try await server.get(path, headers: [.authorization: "Bearer a-master"])
                #expect(withoutKey.status == 401 && withAppKey.status == 401, "\(path)")
                let opened = try await server.operatorGet(path)
                #expect(opened.status == 200, "\(path)")
            }
        }
    }
}
