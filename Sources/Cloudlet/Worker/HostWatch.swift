import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Ends a worker process as soon as the host that started it is gone. A plain thread waits for
/// the host's end of the connection to close, so this holds whatever the worker's other threads
/// are doing (hooks that spin on every thread of the concurrency pool, or on the connection's
/// own loop, included).
///
/// The thread sleeps in `poll(2)` until the connection hangs up, waking once every
/// ``parentCheckMilliseconds`` to check that its parent is still the host, in case the host's end
/// lives on somewhere it should not: an idle worker's watch costs next to no wake-ups. Once the
/// connection has hung up, the parent is checked every 200 ms: a host that closed it on purpose
/// ends the worker its own way (`SIGTERM`, then `SIGKILL` after a grace), and one that died is
/// no longer the parent.
enum HostWatch {
    /// How often the parent process is checked besides.
    static let parentCheckMilliseconds: CInt = 5_000
    /// How often it is checked once the connection has hung up.
    static let afterHangUpCheckMicroseconds: useconds_t = 200_000

    /// Starts watching `connection`, the worker's socket to the host, and the current parent.
    static func start(connection: CInt) {
        let host = getppid()
        let thread = Thread {
            while getppid() == host {
                guard hungUp(connection, waitingUpTo: parentCheckMilliseconds) else { continue }
                // The host's end closed: the host is ending, or it closed the connection to end
                // this worker itself (a stop, with its grace and kill). Its pid alone tells which.
                while getppid() == host { usleep(afterHangUpCheckMicroseconds) }
            }
            _exit(0)
        }
        thread.name = "cloudlet-host-watch"
        thread.start()
    }

    /// Whether the host's end of `connection` closed within `milliseconds`. Waits for nothing
    /// but a hang-up or an error, so messages arriving wake nobody here and stay for the loop.
    private static func hungUp(_ connection: CInt, waitingUpTo milliseconds: CInt) -> Bool {
        var entry = pollfd(fd: connection, events: hangUpEvents, revents: 0)
        let ready = poll(&entry, 1, milliseconds)
        return ready > 0 && entry.revents & (hangUpEvents | Int16(POLLHUP) | Int16(POLLERR) | Int16(POLLNVAL)) != 0
    }

    #if os(Linux)
    /// `POLLRDHUP`: the peer closed its end (Glibc's module does not export the constant).
    private static let hangUpEvents: Int16 = 0x2000
    #else
    /// Elsewhere a closed peer shows as `POLLHUP`, which `poll(2)` reports unasked.
    private static let hangUpEvents: Int16 = 0
    #endif
}
