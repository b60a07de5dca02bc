import Cloudlet
import CloudletServerTesting
import CloudletTesting
import HTTPTypes
import Testing
import WaterCoolerHooks

/// A member's profile picture: uploaded to the server's file store, set on the profile, shown in
/// the directory, fetched back by its URL, and deleted.
@Suite("WaterCooler: profile pictures")
struct ProfilePictureStoryTests {
    static let jpeg: [UInt8] = [0xFF, 0xD8, 0xFF, 0xE0] + Array(repeating: 0x42, count: 3000) + [0xFF, 0xD9]

    @Test func aColleagueUploadsAPictureEveryoneSeesItAndTheAdminDeletesIt() async throws {
        try await ParseTestClient.withRouter(WaterCoolerHooks.self) { client in
            let ada = try await client.signUp("ada", "Ada", "Lovelace")
            let bob = try await client.signUp("bob", "Bob", "Builder")
            let upload = try await client.setProfilePicture("ada.jpg", Self.jpeg, of: ada)
            let name = try #require(upload["name"]?.stringValue)
            #expect(name.hasSuffix("_ada.jpg"))

            // Bob's directory shows Ada's picture URL, and his app fetches the bytes with it (no keys).
            let directory = try await client.find("/users", ["order": "username"], as: bob)
            let url = try #require(directory.first?["profilePicture"]?["url"]?.stringValue)
            #expect(url == upload["url"]?.stringValue)
            let picture = try await client.download(url)
            #expect(picture.status == 200)
            #expect(picture.bytes == Self.jpeg)
            #expect(picture.headers[.contentType] == "image/jpeg")

            // A picture that was never uploaded cannot be set.
            let ghost: ParseValue = ["__type": "File", "name": "0123456789abcdef0123456789abcdef_ghost.jpg"]
            #expect(try await client.send(.put, "/users/\(bob.id)", ["profilePicture": ghost], as: bob)["code"] == 111)

            // Only the master key deletes files; then the URL answers 404.
            #expect(try await client.delete("/files/\(name)", sessionToken: ada.sessionToken).status == 403)
            #expect(try await client.delete("/files/\(name)", master: true).status == 200)
            #expect(try await client.download(url).status == 404)
        }
    }
}
