import ArgumentParser
import CloudletServer
import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// `cloudlet confine --read <path>… --write <folder> -- <command>…`: restricts this process with
/// Landlock to the given paths (where the kernel has it), drops every capability, then executes the
/// command in its place. Hidden: a host starts its
/// workers through it (see `WorkerConfinement`).
struct ConfineCommand: ParsableCommand {
    static var configuration: CommandConfiguration {
        CommandConfiguration(commandName: "confine", abstract: "Run a command restricted to some paths.", shouldDisplay: false)
    }

    @Option(name: .customLong("read"), help: "A folder or file the command may read and execute; repeatable.") var readable: [String] = []
    @Option(name: .customLong("write"), help: "A folder the command may read and write; repeatable.") var writable: [String] = []
    @Argument(parsing: .postTerminator, help: "The command to run.") var command: [String] = []

    func run() throws {
        guard let executable = command.first else { throw ValidationError("no command to run after --") }
        if Landlock.abiVersion != nil {
            try Landlock.restrictSelf(readable: readable, writable: writable, devices: WorkerConfinement.devices)
        }
        try Landlock.dropCapabilities()
        let arguments = command.map { strdup($0) } + [nil]
        execv(executable, arguments)
        throw ValidationError("could not execute \(executable) (errno \(errno))")
    }
}
