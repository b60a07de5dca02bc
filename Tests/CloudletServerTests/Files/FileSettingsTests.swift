import Cloudlet
import CloudletServer
import Foundation
import Testing

/// An app's file options, as the admin API, `cloudlet apps` and the config file give them.
@Suite("File settings")
struct FileSettingsTests {
    @Test func theOptionsAreReadCheckedAndKeptInTheRegistry() async throws {
        let settings = try AppSettings().applying(["files": ["maxUploadBytes": 5_242_880, "requireSession": true]])
        #expect(settings.files == FileSettings(maximumUploadBytes: 5_242_880, requireSession: true))
        #expect(AppSettings().files == FileSettings(maximumUploadBytes: 20 << 20, requireSession: false))
        for bad: ParseValue in [["maxUploadBytes": 0], ["maxUploadBytes": "big"], ["requireSession": "yes"], ["colour": 1], "5MB"] {
            let error = try #require(throws: ParseError.self, "\(bad)") { try AppSettings().applying(["files": bad]) }
            #expect(error.code == 142)
        }

        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("cloudlet-file-settings-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        _ = try await AppRegistry(dataDirectory: folder.path).create("shop", settings: settings)
        #expect(try await AppRegistry(dataDirectory: folder.path).app("shop")?.settings.files == settings.files)
        try await AppRegistry(dataDirectory: folder.path).update("shop") { $0.files.requireSession = false }
        #expect(try await AppRegistry(dataDirectory: folder.path).app("shop")?.settings.files.requireSession == false)
    }
}
