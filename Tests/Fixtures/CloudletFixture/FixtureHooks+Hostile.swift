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
/// - `function("chatter")`: writes `lines` lines (`chatter line <n>`) to standard output at once.
/// - `function("sockets")`: answers every Unix-domain socket bound to a path that `/proc/net/unix`
///   lists (`inode`, `path`) and whether it could connect to it (`connected`).
/// - `function("saveLate")`: under a 300 ms limit, blocks for `ms` milliseconds (ignoring
///   cancellation), then saves a `LateWrite` through its store, and writes `saveLate: the save
///   answered` to standard error once that save has answered, whether it saved or was refused.
/// - `function("holdOnStop")`: makes its worker refuse to end when asked (SIGTERM ignored, and an
///   exit that never finishes), so that only SIGKILL ends it; answers the worker's pid.
/// - `afterSave("Flaky")`: crashes its worker the first time it runs for an object (it leaves a mark
///   in the worker's own folder), and records a `FlakyLog` (`savedId`) the next time; under a 15 s
///   limit, so that a crash whose report takes seconds on a loaded machine ends as a crash, not a
///   timeout.
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
        hooks.function("holdOnStop") { _ in
            signal(SIGTERM, SIG_IGN)
            atexit { while true { pause() } }
            return .number(Double(getpid()))
        }
        hooks.function("big") { request in
            // Filled in one pass: `String(repeating:count:)` appends a character at a time, which
            // for 17 MiB makes the call a long one (demoted to the idle CPU group) before it answers.
            let count = max(request.params["bytes"]?.intValue ?? 0, 0)
            return .string(String(unsafeUninitializedCapacity: count) { $0.initialize(repeating: UInt8(ascii: "x")); return count })
        }
        hooks.function("shout") { request in
            let line = String(repeating: "y", count: request.params["bytes"]?.intValue ?? 0)
            FileHandle.standardError.write(Data("shout: \(line)\n".utf8))
            return "shouted"
        }
        hooks.function("chatter") { request in
            let lines = (0..<(request.params["lines"]?.intValue ?? 0)).map { "chatter line \($0)\n" }.joined()
            FileHandle.standardOutput.write(Data(lines.utf8))
            return "chattered"
        }
        hooks.function("sockets") { _ in
            let table = (try? String(contentsOfFile: "/proc/net/unix", encoding: .utf8)) ?? ""
            let named = table.split(separator: "\n").dropFirst().compactMap { line -> (inode: String, path: String)? in
                let fields = line.split(separator: " ", omittingEmptySubsequences: true)
                return fields.count >= 8 && fields[7].hasPrefix("/") ? (String(fields[6]), String(fields[7])) : nil
            }
            return .array(
                named.map { socket in
                    ["inode": .string(socket.inode), "path": .string(socket.path), "connected": .bool(canConnect(to: socket.path))]
                })
        }
        hooks.function("saveLate", timeLimit: .milliseconds(300)) { request in
            usleep(useconds_t((request.params["ms"]?.intValue ?? 0) * 1000))
            defer { FileHandle.standardError.write(Data("saveLate: the save answered\n".utf8)) }
            _ = try await request.store.asMaster.save(ParseObject(className: "LateWrite", fields: ["note": "too late"]))
            return "saved"
        }
        hooks.afterSave("Flaky", timeLimit: .seconds(15)) { request in
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

/// Whether a stream connection to the Unix-domain socket at `path` succeeds.
private func canConnect(to path: String) -> Bool {
    #if os(Linux)
    let descriptor = socket(AF_UNIX, CInt(SOCK_STREAM.rawValue), 0)
    guard descriptor >= 0 else { return false }
    defer { close(descriptor) }
    var address = sockaddr_un()
    address.sun_family = sa_family_t(AF_UNIX)
    let bytes = Array(path.utf8)
    guard bytes.count < MemoryLayout.size(ofValue: address.sun_path) else { return false }
    withUnsafeMutableBytes(of: &address.sun_path) { $0.copyBytes(from: bytes) }
    return withUnsafePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) == 0 }
    }
    #else
    return false
    #endif
}
