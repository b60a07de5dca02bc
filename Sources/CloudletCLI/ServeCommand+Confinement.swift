import CloudletServer
import Logging

extension ServeCommand {
    /// How workers are fenced in on this system: through this binary's `confine` (Landlock where
    /// the kernel has it, no capabilities) on Linux, not at all elsewhere. Says which, once, at start.
    static func confinement(launcher executable: String, logger: Logger) -> WorkerConfinement? {
        #if os(Linux)
        if let abi = Landlock.abiVersion {
            logger.info("workers are confined to their own folder by Landlock", metadata: ["landlock.abi": "\(abi)"])
        } else {
            logger.warning(
                "Landlock is not available: workers get a scrubbed environment, their own folder and no capabilities, but can read what the host's user can read")
        }
        return WorkerConfinement(launcher: [executable, "confine"])
        #else
        logger.warning("workers are not confined on this system: they get a scrubbed environment and their own folder only")
        return nil
        #endif
    }
}
