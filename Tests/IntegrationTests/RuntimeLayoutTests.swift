import Foundation
import Testing

/// The runtime core has no god type: `AppRuntime` only holds an app's parts, no file adds to it,
/// and each part is a type of its own in its feature's folder (read off the sources).
@Suite struct RuntimeLayoutTests {
    /// The runtime core's folder, from the repository's root.
    static let runtimeFolder = "Sources/CloudletRuntime"

    /// The text of every Swift file under `folder` (a path from the root), by path.
    static func swiftFiles(under folder: String) throws -> [String: String] {
        let base = DocumentationBlocks.root.appendingPathComponent(folder)
        let paths = try FileManager.default.subpathsOfDirectory(atPath: base.path).filter { $0.hasSuffix(".swift") }
        var files: [String: String] = [:]
        for path in paths { files[folder + "/" + path] = try DocumentationBlocks.text(folder + "/" + path) }
        return files
    }

    @Test func noFileExtendsAppRuntime() throws {
        let files = try Self.swiftFiles(under: "Sources")
        #expect(files.count > 100, "the sources are found")
        let extending = files.filter { $0.value.contains(/(?m)^extension AppRuntime\b/) }.keys.sorted()
        #expect(extending.isEmpty, "a feature is a part over AppContext, not an extension of AppRuntime: \(extending)")
    }

    @Test func appRuntimeHoldsItsPartsAndDoesNothingItself() throws {
        let text = try DocumentationBlocks.text(Self.runtimeFolder + "/Runtime/AppRuntime.swift")
        #expect(text.contains("final class AppRuntime"))
        #expect(!text.contains("func "), "AppRuntime has no methods: its parts do the work")
    }

    @Test func eachPartIsATypeInItsFeaturesFolder() throws {
        let parts: [(folder: String, type: String)] = [
            ("Objects", "ObjectWrites"), ("Objects", "ObjectReads"), ("Users", "UserAccounts"), ("Files", "UploadedFiles"),
            ("Jobs", "BackgroundJobs"), ("Installations", "Installations"), ("Hooks", "CloudFunctions"), ("Hooks", "HookRunner"),
            ("Hooks", "AfterHooks"), ("Config", "AppConfig"),
        ]
        for part in parts {
            let path = "\(Self.runtimeFolder)/\(part.folder)/\(part.type).swift"
            let text = try DocumentationBlocks.text(path)
            let declared = ["struct \(part.type) {", "struct \(part.type): Sendable {"].contains(where: text.contains)
            #expect(declared, "\(part.type) is declared in \(path)")
            #expect(text.contains("let app: AppContext"), "\(part.type) works over the app's shared context")
        }
    }

    @Test func everyPartAppRuntimeHoldsIsAFileOfItsOwnOverTheSharedContext() throws {
        let runtime = try DocumentationBlocks.text(Self.runtimeFolder + "/Runtime/AppRuntime.swift")
        let held = runtime.matches(of: /public let \w+: (\w+)/).map { String($0.1) }.filter { $0 != "AppContext" }
        #expect(held.count >= 12, "AppRuntime's parts are read off it: \(held)")
        let files = try Self.swiftFiles(under: Self.runtimeFolder)
        for type in held {
            let file = files.first { $0.key.hasSuffix("/\(type).swift") && !$0.key.hasSuffix("/Runtime/\(type).swift") }
            #expect(file != nil, "\(type) has a file of its own in a feature's folder")
            #expect(file?.value.contains("struct \(type)") == true && file?.value.contains("let app: AppContext") == true,
                "\(type) is a type over the app's shared context")
        }
    }
}
