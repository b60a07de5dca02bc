import Foundation

/// Ends a worker process as soon as the host that started it is gone. A plain thread polls the
/// parent's pid, so this holds whatever the worker's other threads are doing (hooks that spin on
/// every thread of the concurrency pool included), even if the closed connection went unnoticed.
enum HostWatch {
    /// How often the parent is checked.
    static let interval: useconds_t = 200_000

    /// Starts watching the current parent process.
    static func start() {
        let host = getppid()
        let thread = Thread {
            while getppid() == host { usleep(interval) }
            _exit(0)
        }
        thread.name = "cloudlet-host-watch"
        thread.start()
    }
}
