import Foundation
import Testing

/// What a hook author's package compiles: the harness and the worker entry point depend on no
/// module of the HTTP server, the push providers or the metrics exporter (read off `Package.swift`).
@Suite struct ModuleGraphTests {
    /// The packages only the host needs: HTTP, TLS, HTTP/2, the HTTP client, Prometheus, the
    /// cryptography library (push providers' signatures and key hashes) and NIO's extras (HTTP types).
    static let hostOnlyPackages: Set<String> = [
        "hummingbird", "async-http-client", "swift-nio-ssl", "swift-nio-http2", "swift-prometheus", "swift-crypto", "swift-nio-extras",
    ]

    /// Each target of the manifest with the targets and the packages it depends on directly.
    static func targets() throws -> [String: (targets: [String], packages: [String])] {
        let manifest = try DocumentationBlocks.text("Package.swift")
        var targets: [String: (targets: [String], packages: [String])] = [:]
        for declaration in manifest.matches(of: /\.(?:t|executableT|testT)arget\(\s*name: "([\w-]+)",\s*dependencies: \[/) {
            // The dependency list runs to its closing bracket.
            var depth = 1
            var end = declaration.range.upperBound
            while depth > 0, end < manifest.endIndex {
                if manifest[end] == "[" { depth += 1 } else if manifest[end] == "]" { depth -= 1 }
                end = manifest.index(after: end)
            }
            let list = String(manifest[declaration.range.upperBound..<end])
            let packages = list.matches(of: /\.product\(name: "[\w-]+", package: "([\w.-]+)"\)/).map { String($0.1) }
            let names = list.replacing(/\.product\([^)]*\)/, with: "").matches(of: /"([\w-]+)"/).map { String($0.1) }
            targets[String(declaration.1)] = (names, packages)
        }
        return targets
    }

    /// The targets `target` depends on, itself included, and the packages they take products of.
    static func closure(of target: String) throws -> (targets: Set<String>, packages: Set<String>) {
        let all = try targets()
        var seen: Set<String> = []
        var packages: Set<String> = []
        var pending = [target]
        while let next = pending.popLast() {
            guard seen.insert(next).inserted else { continue }
            let entry = try #require(all[next], "\(next) is a target with dependencies")
            packages.formUnion(entry.packages)
            pending += entry.targets.filter { all[$0] != nil }
        }
        return (seen, packages)
    }

    @Test func theHarnessCompilesNoModuleOfTheHost() throws {
        let harness = try Self.closure(of: "CloudletTesting")
        #expect(harness.packages.isDisjoint(with: Self.hostOnlyPackages), "\(harness.packages.intersection(Self.hostOnlyPackages))")
        #expect(!harness.targets.contains("CloudletServer"))
        #expect(harness.targets.isSuperset(of: ["CloudletRuntime", "CloudletSQLite"]), "the harness runs the real runtime and store")
    }

    /// The core hashes session tokens and files' bytes with its own SHA-256: swift-crypto's C sources
    /// are about a third of what a hook author's package would otherwise compile.
    @Test func theRuntimeCoreCompilesNoCryptographyLibrary() throws {
        let core = try Self.closure(of: "CloudletRuntime")
        #expect(!core.packages.contains("swift-crypto"))
        #expect(core.packages.isDisjoint(with: Self.hostOnlyPackages), "\(core.packages.intersection(Self.hostOnlyPackages))")
    }

    @Test func aWorkerExecutableLinksTheSDKAndTheWireFormatOnly() throws {
        let worker = try Self.closure(of: "CloudletWorker")
        #expect(worker.targets == ["CloudletWorker", "Cloudlet", "CloudletWire"])
        #expect(worker.packages == ["swift-log", "swift-nio"])
    }

    @Test func theServerStillHasEverything() throws {
        let server = try Self.closure(of: "CloudletServer")
        #expect(server.packages.isSuperset(of: Self.hostOnlyPackages), "the reading of the manifest finds what is there")
    }
}
