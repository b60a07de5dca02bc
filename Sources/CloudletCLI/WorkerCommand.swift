import ArgumentParser
import Cloudlet
import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// `cloudlet worker`: serves the app's hooks to a host's worker pool over the socket it hands the
/// worker as standard input. Hidden: the host starts workers itself.
struct WorkerCommand<Hooks: HookModule>: AsyncParsableCommand {
    static var configuration: CommandConfiguration {
        CommandConfiguration(commandName: "worker", abstract: "Serve the app's hooks to a Cloudlet host.", shouldDisplay: false)
    }

    @Option(help: "Largest data segment this process may grow to, in MiB; 0 for no limit.") var memoryLimitMb: Int = 0

    func run() async throws {
        // A terminal's Ctrl-C or a service manager's SIGTERM may reach every process of the host's
        // group or cgroup; the host then drains its requests, which needs its workers, and ends them
        // itself when it is done: with SIGTERM, which ends a worker only when its host sends it.
        signal(SIGINT, SIG_IGN)
        Self.endOnTermFromHost()
        if memoryLimitMb > 0 { try Self.limitMemory(toMegabytes: memoryLimitMb) }
        try await HookWorker(registry: Hooks.registry()).run()
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

    /// Caps the process's data segment (heap and private anonymous mappings), soft and hard, so that a
    /// hook allocating without bound fails its allocation and ends this worker, not the host.
    static func limitMemory(toMegabytes megabytes: Int) throws {
        var limit = rlimit(rlim_cur: rlim_t(megabytes) << 20, rlim_max: rlim_t(megabytes) << 20)
        #if canImport(Glibc)
        let resource = __rlimit_resource_t(RLIMIT_DATA.rawValue)
        #else
        let resource = RLIMIT_DATA
        #endif
        guard setrlimit(resource, &limit) == 0 else {
            throw ValidationError("could not limit memory to \(megabytes) MiB (errno \(errno))")
        }
    }
}
