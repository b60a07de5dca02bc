import Cloudlet
import CloudletServer
import CloudletServerTesting
import CloudletTesting
import HTTPTypes
import Testing

/// Query strings decode as HTML forms encode them: `+` is a space, `%2B` a plus.
@Suite("Query strings")
struct QueryStringTests {
    @Test func plusIsASpaceAndAnEncodedPlusIsAPlus() async throws {
        try await ParseTestClient.withRouter(registry: HookRegistry()) { client in
            try await Support.create(client, "People", ["name": "Sean Plott"])
            try await Support.create(client, "People", ["name": "C+Plott"])
            let spaced = try await client.raw(
                .get, "/classes/People?where=%7B%22name%22%3A%22Sean+Plott%22%7D", headers: Support.clientHeaders(), body: nil)
            #expect(Support.values(spaced, "name") == ["Sean Plott"], "\(spaced.body)")
            let plus = try await client.raw(
                .get, "/classes/People?where=%7B%22name%22%3A%22C%2BPlott%22%7D", headers: Support.clientHeaders(), body: nil)
            #expect(Support.values(plus, "name") == ["C+Plott"], "\(plus.body)")
        }
    }
}
