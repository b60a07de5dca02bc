import Cloudlet
import CloudletServerTesting
import CloudletTesting
import HTTPTypes
import Testing
import WaterCoolerHooks

/// The member stories of WaterCooler, driven over HTTP as the iOS app drives them.
@Suite("WaterCooler: members")
struct AccountStoryTests {
    @Test func aColleagueSignsUpWithAProfile() async throws {
        try await ParseTestClient.withRouter(WaterCoolerHooks.self) { client in
            let signup = try await client.post("/users", Colleague.profile("ada", firstName: " Ada ", lastName: "Lovelace", title: "Analyst"))
            #expect(signup.status == 201)
            #expect(signup["firstName"] == "Ada")
            let token = try #require(signup["sessionToken"]?.stringValue)
            let me = try await client.send(.get, "/users/me", token: token)
            #expect(me.status == 200)
            #expect(me["username"] == "ada")
            #expect(me["firstName"] == "Ada")
            #expect(me["lastName"] == "Lovelace")
            #expect(me["title"] == "Analyst")
            #expect(me["email"] == "ada@example.com")
            #expect(me["password"] == nil)

            let nameless = try await client.post("/users", ["username": "nobody", "password": "secret"])
            #expect(nameless.status == 400)
            #expect(nameless["code"] == 142)
            #expect(nameless["error"] == "firstName must not be empty")
            var badPicture = Colleague.profile("bo", firstName: "Bo", lastName: "Peep", title: "Designer")
            badPicture["profilePicture"] = "https://files.example.com/bo.jpg"
            #expect(try await client.post("/users", badPicture)["error"] == "profilePicture must be a File")
        }
    }

    @Test func aColleagueStaysLoggedInUntilLoggingOut() async throws {
        try await ParseTestClient.withRouter(WaterCoolerHooks.self) { client in
            let ada = try await client.signUp("ada", "Ada", "Lovelace")
            let login = try await client.post("/login", ["username": "ada", "password": "secret-ada"])
            #expect(login.status == 200)
            #expect(login["objectId"] == .string(ada.id))
            let token = try #require(login["sessionToken"]?.stringValue)
            for _ in 0..<3 {
                #expect(try await client.send(.get, "/users/me", token: token)["objectId"] == .string(ada.id))
            }
            #expect(try await client.send(.post, "/logout", token: token).status == 200)
            let afterLogout = try await client.send(.get, "/users/me", token: token)
            #expect(afterLogout["code"] == 209)
            #expect(try await client.send(.get, "/users/me", token: ada.sessionToken).status == 200, "the signup session is another session")
            let wrong = try await client.post("/login", ["username": "ada", "password": "guess"])
            #expect(wrong["code"] == 101)
        }
    }

    @Test func colleaguesBrowseTheDirectoryOfAllMembers() async throws {
        try await ParseTestClient.withRouter(WaterCoolerHooks.self) { client in
            let ada = try await client.signUp("ada", "Ada", "Lovelace", title: "Analyst")
            let grace = try await client.signUp("grace", "Grace", "Hopper", title: "Rear Admiral")
            _ = try await client.signUp("alan", "Alan", "Turing", title: "Mathematician")
            let adaPicture = try await client.setProfilePicture("ada.jpg", [1, 2, 3], of: ada)
            let gracePicture = try await client.setProfilePicture("grace.jpg", [4, 5, 6], of: grace)
            let directory = try await client.find("/users", ["order": "lastName"], as: ada)
            #expect(directory.compactMap { $0["lastName"]?.stringValue } == ["Hopper", "Lovelace", "Turing"])
            #expect(directory.compactMap { $0["title"]?.stringValue } == ["Rear Admiral", "Analyst", "Mathematician"])
            #expect(directory.map { $0["profilePicture"]?["url"] } == [gracePicture["url"], adaPicture["url"], nil])
            #expect(directory.allSatisfy { $0["password"] == nil })
            let byClass = try await client.find("/classes/_User", ["where": ["title": "Analyst"]], as: ada)
            #expect(byClass.map { $0["username"] } == ["ada"])
        }
    }

    @Test func aColleagueUpdatesTheirOwnProfileOnly() async throws {
        try await ParseTestClient.withRouter(WaterCoolerHooks.self) { client in
            let ada = try await client.signUp("ada", "Ada", "Lovelace", title: "Analyst")
            let bob = try await client.signUp("bob", "Bob", "Builder")
            let picture = try await client.upload("ada-2026.jpg", [9, 9], contentType: "image/jpeg", sessionToken: ada.sessionToken)
            let update = try await client.send(
                .put, "/users/\(ada.id)", ["title": "Chief Analyst", "profilePicture": Colleague.file(picture)], as: ada)
            #expect(update.status == 200)
            #expect(update["updatedAt"] != nil)
            let me = try await client.send(.get, "/users/me", as: ada)
            #expect(me["title"] == "Chief Analyst")
            #expect(me["profilePicture"] == Colleague.file(picture))
            #expect(me["firstName"] == "Ada")

            let byOther = try await client.send(.put, "/users/\(ada.id)", ["title": "Intern"], as: bob)
            #expect(byOther["code"] == 206)
            let blank = try await client.send(.put, "/users/\(ada.id)", ["lastName": "  "], as: ada)
            #expect(blank["code"] == 142)
            #expect(try await client.send(.get, "/users/me", as: ada)["title"] == "Chief Analyst")
        }
    }
}
