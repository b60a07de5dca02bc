import Cloudlet
import CloudletServerTesting
import CloudletServer
import CloudletTesting
import Foundation
import HTTPTypes
import NIOCore
import Testing

/// No name a client sends, in any encoding, reaches a path outside the app's file folder.
@Suite("File names")
struct FileNameTests {
    /// Names that must never be taken, as they appear in a URL path segment.
    static let hostile = [
        "..", ".", "%2e%2e", "%2E%2E", ".%2e", "..%2F..%2Fhost.sqlite", "%2e%2e%2f%2e%2e%2fhost.sqlite", "a%2Fb", "a%5Cb", "%00",
        "a%00b", "x.txt%00.png", "%252e%252e", "%25", "%", "%zz", "%c0%ae%c0%ae", "%e2%80%ae", ".hidden", "-dash", "~home",
        "a:b", "a%3Fb", "%0d%0aSet-Cookie", String(repeating: "a", count: 129), String(repeating: "%61", count: 129),
    ]

    @Test func hostileNamesAreRefusedAsUploadsAndAsStoredNames() {
        for name in Self.hostile {
            #expect(throws: ParseError.self, "\(name)") { try FileName.uploaded(name) }
            #expect(throws: ParseError.self, "\(name)") { try FileName.storedName("0123456789abcdef0123456789abcdef_" + name) }
        }
    }

    @Test func parseServersNamesAreTakenAndDecodedOnce() throws {
        #expect(try FileName.uploaded("photo.jpg") == "photo.jpg")
        #expect(try FileName.uploaded("my%20photo@2x.png") == "my photo@2x.png")
        #expect(try FileName.uploaded("_a-b~c.d") == "_a-b~c.d")
        #expect(try FileName.uploaded(String(repeating: "a", count: 128)).count == 128)
        let stored = "0123456789abcdef0123456789abcdef_my%20photo.png"
        #expect(try FileName.storedName(stored) == "0123456789abcdef0123456789abcdef_my photo.png")
        for notStored in ["photo.png", "0123456789ABCDEF0123456789ABCDEF_a", "0123456789abcdef0123456789abcde_a", "0123456789abcdef0123456789abcdef_"] {
            #expect(throws: ParseError.self, "\(notStored)") { try FileName.storedName(notStored) }
        }
    }

    @Test(arguments: TestStore.allCases) func overTheRouterEveryHostileFormIsRefusedAndNothingOutsideTheFolderIsRead(store: TestStore) async throws {
        try await FileTestServer.with(store: store) { server in
            // Something to reach for: the host's database, and app b's file.
            let bName = try #require(try await server.b.upload("b.txt", [1])["name"]?.stringValue)
            for name in Self.hostile {
                let upload = try await server.a.upload(name, [1, 2, 3])
                #expect([400, 404].contains(upload.status) && upload["code"] != nil, "upload \(name): \(upload.status) \(upload.body)")
                for target in [name, "0123456789abcdef0123456789abcdef_" + name] {
                    let download = try await server.a.download("/parse/files/a/\(target)")
                    #expect([400, 404].contains(download.status), "download \(target): \(download.status)")
                    let delete = try await server.a.delete("/files/\(target)", master: true)
                    #expect([400, 404].contains(delete.status), "delete \(target): \(delete.status)")
                }
            }
            for path in ["/parse/files/a/../../host.sqlite", "/parse/files/a/..%2F..%2Fhost.sqlite", "/parse/files/a/..%2Fb%2Ffiles%2F\(bName)"] {
                let download = try await server.a.download(path)
                #expect(download.status != 200, "\(path)")
            }
            Support.expectError(try await server.a.upload("a%2F..%2F..%2Fx", [1]), status: 400, code: 122)
            #expect(try await server.files("a").all().isEmpty, "no hostile upload was stored")
            #expect(try await server.b.download("/parse/files/b/\(bName)").bytes == [1], "app b's file is untouched")
        }
    }
}
