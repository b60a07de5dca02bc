/// What a worker executable was asked to do, read from its arguments.
enum WorkerArguments: Equatable {
    /// `worker [--memory-limit-mb <n>]`: serve the hooks to the host.
    case serve(memoryLimitMb: Int)
    /// `hooks list`: print the hooks.
    case listHooks
    /// `--help`, `-h`, `help` or nothing.
    case help
    /// Anything else, and why.
    case invalid(String)

    init(_ arguments: [String]) {
        switch arguments.first {
        case nil, "--help", "-h", "help":
            self = .help
        case "worker":
            self = Self.serve(Array(arguments.dropFirst()))
        case "hooks" where arguments.dropFirst() == ["list"]:
            self = .listHooks
        case _?:
            self = .invalid("unknown command '\(arguments.joined(separator: " "))'")
        }
    }

    /// `worker`'s options: `--memory-limit-mb <n>` (or `=<n>`), a whole number of MiB from 0.
    private static func serve(_ options: [String]) -> WorkerArguments {
        var memoryLimitMb = 0
        var rest = options[...]
        while let option = rest.popFirst() {
            let value: String?
            if option == "--memory-limit-mb" {
                value = rest.popFirst()
            } else if option.hasPrefix("--memory-limit-mb=") {
                value = String(option.dropFirst("--memory-limit-mb=".count))
            } else if option == "--help" || option == "-h" {
                return .help
            } else {
                return .invalid("unknown option '\(option)' of worker")
            }
            guard let megabytes = value.flatMap({ Int($0) }), megabytes >= 0 else {
                return .invalid("--memory-limit-mb needs a whole number of MiB from 0")
            }
            memoryLimitMb = megabytes
        }
        return .serve(memoryLimitMb: memoryLimitMb)
    }

    /// What the executable answers: the commands a host runs it with.
    static func usage(executable: String) -> String {
        """
        USAGE: \(executable) <command>

        A Cloudlet worker executable: a host serves its hooks (`cloudlet serve --app <id>=<this executable>`).

        COMMANDS:
          worker [--memory-limit-mb <n>]  Serve the hooks to the host that started this process.
          hooks list                      List each hook: kind, class or function, time limit, rate limit.
        """
    }
}
