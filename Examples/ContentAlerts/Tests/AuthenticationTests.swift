import Cloudlet
import CloudletServerTesting
import CloudletTesting
import ContentAlertsHooks
import Testing

@Suite("ContentAlerts: authenticate")
struct AuthenticationTests {
    @Test func matchingCredentialsGetARandomToken() async throws {
        try await ParseTestClient.withRouter(ContentAlertsHooks.self) { client in
            try await Newsroom.seed(client)
            let reply = try await client.post("/functions/authenticate", ["username": "ada", "password": "secret-ada", "role": "editor"])
            #expect(reply.status == 200)
            let result = try #require(reply["result"])
            #expect(result["username"] == "ada")
            #expect(result["role"] == "editor")
            #expect(result["expiresAt"]?.dateValue != nil)
            let token = try #require(result["token"]?.stringValue)
            #expect(token.count == 64)
            #expect(try await Newsroom.token(client, "ada", role: "editor") != token, "each token is new")
        }
    }

    @Test(arguments: [
        ("ada", "wrong", "editor"),  // wrong password
        ("ada", "secret-ada", "reader"),  // wrong role
        ("nobody", "secret-nobody", "editor"),  // unknown user
        ("bob", "secret-bob", "editor"),  // a reader claiming to be an editor
    ])
    func anyMismatchIsTheSameError(_ username: String, _ password: String, _ role: String) async throws {
        try await ParseTestClient.withRouter(ContentAlertsHooks.self) { client in
            try await Newsroom.seed(client)
            let reply = try await client.post(
                "/functions/authenticate", ["username": .string(username), "password": .string(password), "role": .string(role)])
            #expect(reply.status == 404)
            #expect(reply.body == ["code": 101, "error": "invalid credentials"])
        }
    }

    @Test func usersKeepOnlyASaltedDigestAndOnlyTheMasterKeySeesThem() async throws {
        try await ParseTestClient.withRouter(ContentAlertsHooks.self) { client in
            try await Newsroom.seed(client)
            let users = try #require(try await client.get("/classes/Users", master: true)["results"]?.arrayValue)
            #expect(users.count == 2)
            for user in users {
                #expect(user["password"] == nil)
                #expect(user["salt"]?.stringValue?.count == 32)
                #expect(user["passwordHash"]?.stringValue?.count == 64)
            }
            #expect(users[0]["salt"] != users[1]["salt"], "each user has its own salt")
            #expect(try await client.get("/classes/Users")["results"] == [], "clients see no accounts")
            #expect(try await client.get("/classes/AuthTokens")["results"] == [], "clients see no tokens")

            let byClient = try await client.post("/classes/Users", ["username": "eve", "password": "x", "role": "editor"])
            #expect(byClient["code"] == 119)
            let duplicate = try await client.post("/classes/Users", ["username": "ada", "password": "x", "role": "editor"], master: true)
            #expect(duplicate["code"] == 202)
        }
    }
}
