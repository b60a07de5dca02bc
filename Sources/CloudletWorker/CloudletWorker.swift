import Cloudlet
import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The entry point of an app's own worker executable: a host serves the app with
/// `cloudlet serve --app shop=<executable>` (or `cloudlet apps create shop --hooks <executable>`) and
/// starts that executable as its workers. It links the SDK and the wire format only — no server.
///
/// ```swift
/// import CloudletWorker
/// import ShopHooks
///
/// await CloudletWorker.run(ShopHooks.self)
/// ```
///
/// It answers what a host runs it with: `worker [--memory-limit-mb <n>]` serves the hooks over the
/// socket the host hands it as standard input; `hooks list` prints them as `cloudlet hooks list`
/// does (the host reads the jobs an app has from it); `--help` says so.
public enum CloudletWorker {
    /// Runs the command in `arguments` (the process's own by default) for the hooks of `module`, and
    /// exits with its status: 0, or 64 with a usage line for a command it does not know.
    public static func run<Module: HookModule>(
        _ module: Module.Type, arguments: [String] = Array(CommandLine.arguments.dropFirst())
    ) async -> Never {
        switch WorkerArguments(arguments) {
        case .serve(let memoryLimitMb):
            do {
                try await serve(Module.registry(), memoryLimitMb: memoryLimitMb)
            } catch {
                FileHandle.standardError.write(Data("error: \(error)\n".utf8))
                exit(1)
            }
        case .listHooks:
            for line in hookList(Module.registry()) { print(line) }
            exit(0)
        case .help:
            print(WorkerArguments.usage(executable: executableName))
            exit(0)
        case .invalid(let reason):
            FileHandle.standardError.write(Data("error: \(reason)\n\(WorkerArguments.usage(executable: executableName))\n".utf8))
            exit(64)
        }
    }

    /// Serves the hooks of `registry` to the host that started this process, as `cloudlet worker`
    /// does: a terminal's Ctrl-C or a service manager's SIGTERM may reach every process of the
    /// host's group or cgroup; the host then drains its requests, which needs its workers, and ends
    /// them itself when it is done — with SIGTERM, which ends a worker only when its host sends it.
    /// The data segment is capped at `memoryLimitMb` MiB (0 for no cap).
    public static func serve(_ registry: HookRegistry, memoryLimitMb: Int) async throws -> Never {
        signal(SIGINT, SIG_IGN)
        endOnTermFromHost()
        if memoryLimitMb > 0 { try limitMemory(toMegabytes: memoryLimitMb) }
        try await HookWorker(registry: registry).run()
    }

    /// Makes SIGTERM end this process at once (status 0) when its parent, the host, sends it, and
    /// ignored when anyone else does.
    static func endOnTermFromHost() {
        #if canImport(Glibc)
        var action = sigaction()
        action.__sigaction_handler.sa_sigaction = { _, info, _ in
            if let info, info.pointee._sifields._kill.si_pid == getppid() { _exit(0) }
        }
        action.sa_flags = SA_SIGINFO
        sigemptyset(&action.sa_mask)
        sigaction(SIGTERM, &action, nil)
        #else
        signal(SIGTERM, SIG_DFL)
        #endif
    }

    /// One line per hook of `registry`: its kind padded to a column, its class or function (or
    /// `(app)`), its time limit, and its rate limit if it has one.
    public static func hookList(_ registry: HookRegistry) -> [String] {
        registry.summary.map { hook in
            let limit = hook.rateLimit.map { "  at most \($0.count) per \($0.window) per \($0.scope.rawValue)" } ?? ""
            let name = hook.kind.definition.binding == .nothing ? "(app)" : hook.name
            return "\(hook.kind.rawValue.padding(toLength: 13, withPad: " ", startingAt: 0)) \(name)  (\(hook.timeLimit))\(limit)"
        }
    }

    /// The limit `setrlimit` refused.
    public struct MemoryLimitRefused: Error, CustomStringConvertible {
        public let megabytes: Int
        public let errorNumber: Int32
        public var description: String { "could not limit memory to \(megabytes) MiB (errno \(errorNumber))" }
    }

    /// Caps the process's data segment (heap and private anonymous mappings), soft and hard, so that a
    /// hook allocating without bound fails its allocation and ends this worker, not the host.
    static func limitMemory(toMegabytes megabytes: Int) throws {
        var limit = rlimit(rlim_cur: rlim_t(megabytes) << 20, rlim_max: rlim_t(megabytes) << 20)
        #if canImport(Glibc)
        let resource = __rlimit_resource_t(RLIMIT_DATA.rawValue)
        #else
        let resource = RLIMIT_DATA
        #endif
        guard setrlimit(resource, &limit) == 0 else { throw MemoryLimitRefused(megabytes: megabytes, errorNumber: errno) }
    }

    private static var executableName: String {
        CommandLine.arguments.first.map { URL(fileURLWithPath: $0).lastPathComponent } ?? "worker"
    }
}
