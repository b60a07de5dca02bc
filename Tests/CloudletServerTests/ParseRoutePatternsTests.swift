@testable import CloudletServer
import Testing

@Suite("Route patterns before the router")
struct ParseRoutePatternsTests {
    @Test func rawPathsMatchTheRoutesWhoseAppIsInTheHeader() {
        let patterns = ParseRoutePatterns(routes: ParseAPI.routes, mountPath: "/parse")
        #expect(patterns.pattern(of: "/parse/classes/Posts") == "/parse/classes/{className}")
        #expect(patterns.pattern(of: "/parse/classes/Posts?limit=1&where=%7B%7D") == "/parse/classes/{className}")
        #expect(patterns.pattern(of: "/parse/classes/Posts/abc") == "/parse/classes/{className}/{objectId}")
        #expect(patterns.pattern(of: "/parse/users/me") == "/parse/users/me")
        #expect(patterns.pattern(of: "/parse/batch") == "/parse/batch")
        #expect(patterns.pattern(of: "/parse/files/a.txt") == "/parse/files/{id}")
        // A file download names its app in the path, not the header.
        #expect(patterns.pattern(of: "/parse/files/app/a.txt") == nil)
        #expect(patterns.pattern(of: "/parse/health") == nil)
        #expect(patterns.pattern(of: "/parse/classes/A/b/c") == nil)
        #expect(patterns.pattern(of: "/classes/Posts") == nil)
        #expect(patterns.pattern(of: "/parse") == nil)
        let atRoot = ParseRoutePatterns(routes: ParseAPI.routes, mountPath: "")
        #expect(atRoot.pattern(of: "/classes/Posts") == "/classes/{className}")
    }
}
