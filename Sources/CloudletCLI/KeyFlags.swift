import Foundation

/// The flags that carry a key: `--client-key`, `--master-key` and `--operator-key`.
///
/// Any process of the host's user, a worker running another app's hooks included, can read a
/// process's command line in `/proc/<pid>/cmdline`. So, once `CommandLine.arguments` holds them,
/// the values of these flags are overwritten with zero bytes in the process's own argument memory,
/// which is what the kernel shows there. The environment (`/proc/<pid>/environ`) and the config
/// file are not readable by workers, which is why they are the recommended way to give keys.
enum KeyFlags {
    /// The names of the flags whose values are keys.
    static let names = ["--client-key", "--master-key", "--operator-key"]

    /// Overwrites the value of every key flag (`--master-key value` or `--master-key=value`) in the
    /// process's argument memory with zero bytes, after making sure `CommandLine.arguments` has its
    /// own copy. Answers the names of the key flags that were given.
    @discardableResult
    static func scrubFromProcessArguments() -> [String] {
        let arguments = CommandLine.arguments
        let memory = CommandLine.unsafeArgv
        var given: [String] = []
        for index in arguments.indices.dropFirst() {
            let argument = arguments[index]
            if names.contains(argument), index + 1 < arguments.count {
                given.append(argument)
                memory[index + 1].map { zero($0, from: 0) }
            } else if let name = names.first(where: { argument.hasPrefix($0 + "=") }) {
                given.append(name)
                memory[index].map { zero($0, from: name.utf8.count + 1) }
            }
        }
        return given
    }

    /// Zeroes the bytes of the C string `text` from `offset` to its end.
    private static func zero(_ text: UnsafeMutablePointer<CChar>, from offset: Int) {
        let length = strlen(text)
        guard length > offset else { return }
        memset(text + offset, 0, length - offset)
    }
}
