import Foundation

/// How a worker is fenced in on Linux: it starts as the host's `confine` command (the hidden
/// subcommand of every `CloudletCommand` binary), which applies Landlock's rules (where the kernel
/// has it), drops every capability and then executes the worker, so all of it holds for the app's
/// executable whatever it does.
///
/// The worker may read and execute the system's folders and the Swift runtime's, read and write a few
/// device files and everything in its own working folder, and nothing else: not the host's data
/// folder (`host.sqlite` with every app's keys, other apps' databases), not other workers' folders.
public struct WorkerConfinement: Sendable {
    /// The command that applies the rules and executes what follows `--`: `[host executable, "confine"]`.
    public var launcher: [String]
    /// Folders and files the worker may read and execute.
    public var readable: [String]

    /// A confinement through `launcher`, with ``systemPaths`` and the folders of the shared libraries
    /// this process has loaded (the Swift runtime) readable.
    public init(launcher: [String]) {
        self.launcher = launcher
        readable = Self.systemPaths + Self.loadedLibraryFolders()
    }

    /// What a worker reads of the system: programs and libraries, the loader's cache, time zones,
    /// certificates, name resolution, CPU counts and `/proc` (the Swift runtime reads its own entry
    /// there; a rule on `/proc/self` alone does not hold, as the kernel makes those entries anew).
    /// Other processes' entries stay closed where it matters (`environ`, `cwd`, `mem`), as a worker
    /// holds no capability and Landlock keeps it from tracing processes outside its own domain. Not
    /// the rest of `/etc` or `/sys`, nor `/home`.
    public static let systemPaths = [
        "/usr", "/lib", "/lib64", "/lib32", "/bin", "/sbin", "/etc/ld.so.cache", "/etc/localtime", "/etc/ssl",
        "/etc/ca-certificates", "/etc/resolv.conf", "/etc/hosts", "/etc/nsswitch.conf", "/etc/gai.conf",
        "/etc/host.conf", "/etc/services", "/etc/protocols", "/proc", "/sys/devices/system/cpu", "/sys/fs/cgroup",
    ]

    /// The device files a worker may read and write.
    public static let devices = ["/dev/null", "/dev/zero", "/dev/random", "/dev/urandom"]

    /// The command line that runs `command` confined: its executable (`command[0]`, and no more of
    /// its folder) readable too, and `workingFolder` readable and writable.
    func command(_ command: [String], workingFolder: String) -> [String] {
        launcher + (readable + command.prefix(1)).flatMap { ["--read", $0] } + ["--write", workingFolder, "--"] + command
    }

    /// The folders of the shared libraries mapped into this process outside ``systemPaths`` (such as
    /// a toolchain's Swift runtime), from `/proc/self/maps`.
    static func loadedLibraryFolders() -> [String] {
        guard let maps = try? String(contentsOfFile: "/proc/self/maps", encoding: .utf8) else { return [] }
        let folders = maps.split(separator: "\n").compactMap { line -> String? in
            guard let path = line.split(separator: " ", omittingEmptySubsequences: true).last, path.hasPrefix("/"),
                path.contains(".so")
            else { return nil }
            let folder = (String(path) as NSString).deletingLastPathComponent
            return systemPaths.contains { folder == $0 || folder.hasPrefix($0 + "/") } ? nil : folder
        }
        return Array(Set(folders)).sorted()
    }
}
