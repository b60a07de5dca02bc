import Cloudlet
import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// Hooks that reach beyond their worker, or send the host more than it should take:
///
/// - `function("snoop")`: tries to read the files `paths` (answering, for each, the bytes it could
///   read or null) and reports its environment (`environment`: variable → value), working folder and
///   effective capabilities (`capabilities`, as `/proc/self/status` shows them).
/// - `function("big")`: answers a string of `bytes` bytes.
/// - `function("shout")`: writes one line of `bytes` bytes to standard error.
/// - `function("saveLate")`: under a 300 ms limit, blocks for `ms` milliseconds (ignoring
///   cancellation), then saves a `LateWrite` through its store.
/// - `afterSave("Flaky")`: crashes its worker the first time it runs for an object (it leaves a mark
///   in the worker's own folder), and records a `FlakyLog` (`savedId`) the next time.
extension FixtureHooks {
    static func registerHostile(_ hooks: inout HookRegistry) {
        hooks.function("snoop") { request in
            var files: [String: ParseValue] = [:]
            for path in request.params["paths"]?.arrayValue?.compactMap(\.stringValue) ?? [] {
                files[path] = FileManager.default.contents(atPath: path).map { .number(Double($0.count)) } ?? .null
            }
            let status = (try? String(contentsOfFile: "/proc/self/status", encoding: .utf8)) ?? ""
            let capabilities = status.split(separator: "\n").first { $0.hasPrefix("CapEff:") }?.split(separator: "\t").last
            return [
                "files": .object(files), "capabilities": capabilities.map { .string(String($0)) } ?? .null,
                "environment": .object(ProcessInfo.processInfo.environment.mapValues(ParseValue.string)),
                "folder": .string(FileManager.default.currentDirectoryPath),
            ]
        }
        hooks.function("big") { request in
            .string(String(repeating: "x", count: request.params["bytes"]?.intValue ?? 0))
        }
        hooks.function("shout") { request in
            let line = String(repeating: "y", count: request.params["bytes"]?.intValue ?? 0)
            FileHandle.standardError.write(Data("shout: \(line)\n".utf8))
            return "shouted"
        }
        hooks.function("saveLate", timeLimit: .milliseconds(300)) { request in
            usleep(useconds_t((request.params["ms"]?.intValue ?? 0) * 1000))
            _ = try await request.store.asMaster.save(ParseObject(className: "LateWrite", fields: ["note": "too late"]))
            return "saved"
        }
        hooks.afterSave("Flaky") { request in
            let mark = "flaky-\(request.object.objectId ?? "")"
            if !FileManager.default.fileExists(atPath: mark) {
                _ = FileManager.default.createFile(atPath: mark, contents: Data())
                fatalError("Flaky crashes the first time")
            }
            _ = try await request.store.asMaster.save(
                ParseObject(className: "FlakyLog", fields: ["savedId": request.object.objectId.map(ParseValue.string) ?? .null]))
        }
    }
}
