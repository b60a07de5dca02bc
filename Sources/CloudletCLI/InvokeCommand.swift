import ArgumentParser
import Cloudlet
import CloudletServer
import Foundation
import Logging

/// `cloudlet invoke <hook> --input file.json`: runs one hook locally against a throwaway store and
/// prints its answer as JSON. `<hook>` is a function name, `kind:Class` such as `beforeSave:Posts`,
/// or the kind alone for a kind bound to nothing (`beforeLogin`).
struct InvokeCommand<Hooks: HookModule>: AsyncParsableCommand {
    static var configuration: CommandConfiguration {
        CommandConfiguration(commandName: "invoke", abstract: "Run one hook locally: JSON in, JSON out.")
    }

    @Argument(
        help: "A function name, kind:Name (beforeSave:Posts, afterDelete:Posts, beforeFind:Posts, afterFind:Posts, job:cleanup, …), or beforeLogin, afterLogin, afterLogout, beforeConnect."
    )
    var hook: String

    @Option(
        help: "JSON file with what the hook receives: an object (save, delete, login triggers), a query (beforeFind), an array of objects (afterFind), parameters (functions, jobs); - for standard input."
    )
    var input: String?

    @Flag(help: "Run as the master key.") var master = false

    func run() async throws {
        let (kind, name) = try Self.parse(hook)
        let data = try input.map { $0 == "-" ? FileHandle.standardInput.readDataToEndOfFile() : try Data(contentsOf: URL(fileURLWithPath: $0)) }
        let nothing: ParseValue = kind.definition.receives == .objectsAndQuery ? .array([]) : .object([:])
        let parsed = try data.map { try JSONParser.parse($0) } ?? nothing
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("cloudlet-invoke-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let runtime = AppRuntime(
            appId: "invoke", stores: AppStores(try SQLiteAppDatabase(path: folder.appendingPathComponent("invoke.sqlite").path)),
            executor: InProcessHookExecutor(registry: Hooks.registry()), clock: SystemClock(),
            logger: Logger(label: "cloudlet"), hookLogger: Logger(label: "cloudlet.hooks"))
        do {
            let result = try await runtime.invoker.invoke(kind, name, input: parsed, caller: Caller(isMaster: master, requestId: "invoke"))
            print(JSONWriter.string(kind == .function ? ["result": result] : result))
        } catch let error as ParseError {
            print(JSONWriter.string(["code": .number(Double(error.code)), "error": .string(error.message)]))
            throw ExitCode.failure
        }
    }

    static func parse(_ hook: String) throws -> (HookKind, String) {
        let parts = hook.split(separator: ":", maxSplits: 1).map(String.init)
        if parts.count == 1, let kind = HookKind(rawValue: hook), kind.definition.binding == .nothing { return (kind, "") }
        guard parts.count == 2 else { return (.function, hook) }
        guard let kind = HookKind(rawValue: parts[0]) else {
            throw ValidationError("unknown hook kind \(parts[0]); use \(HookKind.allCases.map(\.rawValue).joined(separator: ", "))")
        }
        return (kind, parts[1])
    }
}
