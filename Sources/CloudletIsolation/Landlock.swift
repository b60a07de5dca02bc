import CCloudletLandlock

#if canImport(Glibc)
import Glibc
#endif

/// The Linux kernel's Landlock: file access rules a process sets on itself, which hold for every
/// program it executes afterwards and which no capability (root's included) lifts. A worker is
/// started through ``WorkerConfinement``, which applies them before the app's executable runs.
public enum Landlock {
    /// The ABI version the kernel offers; nil where it offers none (not Linux, an old kernel, or
    /// Landlock left out of the kernel's security modules).
    public static var abiVersion: Int? {
        #if os(Linux)
        let version = cloudlet_landlock_abi()
        return version > 0 ? Int(version) : nil
        #else
        return nil
        #endif
    }

    /// A Landlock call that failed.
    public struct Failure: Error, CustomStringConvertible {
        /// What was being done.
        public let operation: String
        /// The system's error number.
        public let errorNumber: Int32

        public var description: String { "Landlock: \(operation) failed (errno \(errorNumber))" }
    }

    private static let execute: UInt64 = 1 << 0
    private static let writeFile: UInt64 = 1 << 1
    private static let readFile: UInt64 = 1 << 2
    private static let readDirectory: UInt64 = 1 << 3
    private static let truncate: UInt64 = 1 << 14
    private static let ioctlDevice: UInt64 = 1 << 15
    /// The rights that apply to a file (the others are about folders).
    private static let fileRights = execute | writeFile | readFile | truncate | ioctlDevice

    /// Empties the capability bounding set, so that what this process executes next holds no
    /// capability, even as root (which Landlock alone would not take away: a root worker could
    /// still, say, load a kernel module).
    public static func dropCapabilities() throws(Failure) {
        #if os(Linux)
        guard cloudlet_drop_capabilities() == 0 else { throw Failure(operation: "dropping capabilities", errorNumber: errno) }
        #endif
    }

    /// Every file access right the kernel's `abi` knows: all of them are denied but where a rule allows.
    static func handledAccess(abi: Int) -> UInt64 {
        var rights: UInt64 = (1 << 13) - 1
        if abi >= 2 { rights |= 1 << 13 }  // refer
        if abi >= 3 { rights |= truncate }
        if abi >= 5 { rights |= ioctlDevice }
        return rights
    }

    /// Restricts this process, and what it executes, to: reading and executing beneath `readable`;
    /// reading and writing the files `devices`; everything beneath `writable`. With ABI 6 or later it
    /// may also signal no process outside its own domain (the host among them). Paths that do not exist are skipped.
    public static func restrictSelf(readable: [String], writable: [String], devices: [String]) throws(Failure) {
        #if os(Linux)
        guard let abi = abiVersion else { throw Failure(operation: "checking the ABI version", errorNumber: errno) }
        let handled = handledAccess(abi: abi)
        let scoped: UInt64 = abi >= 6 ? 0b11 : 0  // abstract Unix sockets, signals
        let ruleset = cloudlet_landlock_create_ruleset(handled, scoped)
        guard ruleset >= 0 else { throw Failure(operation: "creating a ruleset", errorNumber: errno) }
        defer { close(ruleset) }
        let rules =
            readable.map { ($0, execute | readFile | readDirectory) } + devices.map { ($0, readFile | writeFile | ioctlDevice) }
            + writable.map { ($0, handled) }
        for (path, rights) in rules {
            let descriptor = cloudlet_open_path(path)
            guard descriptor >= 0 else { continue }
            defer { close(descriptor) }
            let isFolder = cloudlet_is_folder(descriptor) == 1
            let allowed = (isFolder ? rights : rights & fileRights) & handled
            guard cloudlet_landlock_allow(ruleset, descriptor, allowed) == 0 else {
                throw Failure(operation: "allowing \(path)", errorNumber: errno)
            }
        }
        guard cloudlet_landlock_restrict_self(ruleset) == 0 else { throw Failure(operation: "restricting the process", errorNumber: errno) }
        #else
        throw Failure(operation: "restricting the process", errorNumber: ENOSYS)
        #endif
    }
}
