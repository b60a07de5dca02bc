import Cloudlet
import Hummingbird
import Testing

@testable import CloudletRuntime
@testable import CloudletSQLite
@testable import CloudletServer

@Suite("The route table's one matcher")
struct ParseRouteTableTests {
    /// A concrete path below the mount path for `pattern`: each `:name` becomes a sample value.
    static func samplePath(_ pattern: String) -> String {
        "/" + pattern.split(separator: "/").map { $0.first == ":" ? "sample\($0.dropFirst())" : String($0) }.joined(separator: "/")
    }

    @Test func everyRouteIsFoundAtItsOwnPathWithItsParametersAndTheRoutersLabel() throws {
        let table = ParseRouteTable(routes: ParseAPI.routes, mountPath: "/parse")
        for route in ParseAPI.routes {
            let (path, parameters) = try #require(table.match(Self.samplePath(route.path)), "\(route.path)")
            #expect(path.pattern == route.path)
            #expect(path.routes[route.method]?.path == route.path)
            #expect(path.label == RouterPath("/parse/" + route.path).description, "the router names the route so in metrics")
            for segment in route.path.split(separator: "/") where segment.first == ":" {
                #expect(parameters.get(String(segment.dropFirst())) == "sample\(segment.dropFirst())")
            }
        }
    }

    @Test func aLiteralSegmentWinsOverAParameterWhateverTheOrder() throws {
        let me = ParseRoute(.get, "users/me") { _, _ in .init(body: "me") }
        let user = ParseRoute(.get, "users/:objectId") { _, _ in .init(body: "user") }
        for routes in [[me, user], [user, me]] {
            let table = ParseRouteTable(routes: routes, mountPath: "")
            #expect(table.match("/users/me")?.path.pattern == "users/me")
            #expect(table.match("/users/abc")?.path.pattern == "users/:objectId")
        }
    }

    @Test func rawPathsAreLabelledForRoutesWhoseAppIsInTheHeader() {
        let table = ParseRouteTable(routes: ParseAPI.routes, mountPath: "/parse")
        #expect(table.label(ofRequestPath: "/parse/classes/Posts") == "/parse/classes/{className}")
        #expect(table.label(ofRequestPath: "/parse/classes/Posts?limit=1&where=%7B%7D") == "/parse/classes/{className}")
        #expect(table.label(ofRequestPath: "/parse/classes/Posts/abc") == "/parse/classes/{className}/{objectId}")
        #expect(table.label(ofRequestPath: "/parse/users/me") == "/parse/users/me")
        #expect(table.label(ofRequestPath: "/parse/batch") == "/parse/batch")
        #expect(table.label(ofRequestPath: "/parse/files/a.txt") == "/parse/files/{id}")
        // A file download names its app in the path, not the header.
        #expect(table.label(ofRequestPath: "/parse/files/app/a.txt") == nil)
        #expect(table.label(ofRequestPath: "/parse/health") == nil)
        #expect(table.label(ofRequestPath: "/parse/classes/A/b/c") == nil)
        #expect(table.label(ofRequestPath: "/classes/Posts") == nil)
        #expect(table.label(ofRequestPath: "/parse") == nil)
        let atRoot = ParseRouteTable(routes: ParseAPI.routes, mountPath: "")
        #expect(atRoot.label(ofRequestPath: "/classes/Posts") == "/classes/{className}")
    }

    @Test func batchPathsMayNameTheMountPathAndAQuery() {
        let table = ParseRouteTable(routes: ParseAPI.routes, mountPath: "/parse")
        #expect(table.pathBelowMount("/parse/classes/Posts?limit=1") == "/classes/Posts")
        #expect(table.pathBelowMount("/classes/Posts") == "/classes/Posts")
        #expect(table.pathBelowMount("/parsed/classes") == "/parsed/classes")
    }
}
