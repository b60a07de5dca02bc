import Foundation
import Glibc

// The floor under a hook in a worker process: what one round trip to another process costs on this
// machine with nothing else on the path. A 300-byte message goes to a child process over a Unix
// socket and back, in plain system calls: no framing, no JSON, no event loop's hand-offs between
// threads. A hook call to a worker costs at least one such round trip; Cloudlet's adds those on top.
//   - blocking: each side sleeps in read(2);
//   - poll: each side first waits for the socket to be readable in poll(2), as an event loop does
//     in epoll_wait(2).
// Under `taskset -c 0` both processes share one core, so that no wake-up crosses cores.
// This executable is also the child: it is started as `<this> echo <socket> <poll|blocking>`.
//
//   swift run -c release cloudlet-roundtrip-benchmark [round trips]

let messageSize = 300

/// Reads exactly `count` bytes from `fd` into `buffer`; false at the end of the stream.
func readFully(_ fd: Int32, _ buffer: UnsafeMutableRawPointer, _ count: Int) -> Bool {
    var done = 0
    while done < count {
        let read = Glibc.read(fd, buffer + done, count - done)
        guard read > 0 else { return false }
        done += read
    }
    return true
}

/// Writes the `count` bytes of `buffer` to `fd`.
func writeFully(_ fd: Int32, _ buffer: UnsafeRawPointer, _ count: Int) {
    var done = 0
    while done < count {
        let written = write(fd, buffer + done, count - done)
        guard written > 0 else { return }
        done += written
    }
}

/// Receives one message on `fd`, first waiting in poll(2) for it to be readable if `polls`; false
/// at the end of the stream.
func receive(_ fd: Int32, polls: Bool, into buffer: UnsafeMutableRawPointer) -> Bool {
    if polls {
        var readable = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        _ = poll(&readable, 1, -1)
    }
    return readFully(fd, buffer, messageSize)
}

/// A message's worth of bytes.
func messageBuffer() -> UnsafeMutableRawPointer {
    let buffer = UnsafeMutableRawPointer.allocate(byteCount: messageSize, alignment: 8)
    buffer.initializeMemory(as: UInt8.self, repeating: UInt8(ascii: "x"), count: messageSize)
    return buffer
}

// The child: echoes every message until the parent closes the socket.
if CommandLine.arguments.count == 4, CommandLine.arguments[1] == "echo", let fd = Int32(CommandLine.arguments[2]) {
    let buffer = messageBuffer()
    let polls = CommandLine.arguments[3] == "poll"
    while receive(fd, polls: polls, into: buffer) { writeFully(fd, buffer, messageSize) }
    exit(0)
}

/// One way of waiting for the other side.
enum Mode: CaseIterable {
    case blocking, poll

    var title: String {
        switch self {
        case .blocking: "blocking read"
        case .poll: "poll, then read"
        }
    }
}

/// `count` round trips to a fresh child in `mode`, after 1,000 unmeasured; their times in µs, sorted.
func roundTrips(_ count: Int, _ mode: Mode) -> [Double] {
    var fds: [Int32] = [0, 0]
    guard socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0, &fds) == 0 else { fatalError("socketpair: \(errno)") }
    // The child gets only its own end: with both, it would never see this end close.
    _ = fcntl(fds[0], F_SETFD, FD_CLOEXEC)
    let arguments = [CommandLine.arguments[0], "echo", String(fds[1]), mode == .poll ? "poll" : "blocking"]
    let argv = arguments.map { strdup($0) } + [nil]
    defer { argv.forEach { free($0) } }
    var child: pid_t = 0
    guard posix_spawn(&child, "/proc/self/exe", nil, nil, argv, environ) == 0 else { fatalError("posix_spawn: \(errno)") }
    close(fds[1])
    let socket = fds[0]
    let buffer = messageBuffer()
    defer { buffer.deallocate() }
    var times: [Double] = []
    times.reserveCapacity(count)
    var start = timespec()
    var end = timespec()
    for index in 0..<(count + 1_000) {
        clock_gettime(CLOCK_MONOTONIC, &start)
        writeFully(socket, buffer, messageSize)
        guard receive(socket, polls: mode == .poll, into: buffer) else { fatalError("the child ended") }
        clock_gettime(CLOCK_MONOTONIC, &end)
        if index >= 1_000 {
            times.append(Double(end.tv_sec - start.tv_sec) * 1e6 + Double(end.tv_nsec - start.tv_nsec) / 1e3)
        }
    }
    close(socket)
    var status: Int32 = 0
    waitpid(child, &status, 0)
    return times.sorted()
}

let count = max(1, CommandLine.arguments.dropFirst().first.flatMap(Int.init) ?? 20_000)
print("$ swift run -c release cloudlet-roundtrip-benchmark \(count)")
/// The cores this process may run on, as the kernel lists them (`0-1`; `0` under `taskset -c 0`).
let allowedCores = (try? String(contentsOfFile: "/proc/self/status", encoding: .utf8))?
    .split(separator: "\n").first { $0.hasPrefix("Cpus_allowed_list:") }?
    .split(separator: "\t").last.map(String.init) ?? "?"
print(
    "a \(messageSize)-byte message to a child process over a Unix socket and back; \(count) round trips each, after 1,000"
        + " unmeasured; both processes on cores \(allowedCores) of \(ProcessInfo.processInfo.processorCount)")
print("mode                                 p50 µs   p90 µs   p99 µs")
for mode in Mode.allCases {
    let times = roundTrips(count, mode)
    func percentile(_ share: Double) -> Double { times[min(times.count - 1, Int(Double(times.count) * share))] }
    print(
        mode.title.padding(toLength: 35, withPad: " ", startingAt: 0)
            + String(format: "%8.1f %8.1f %8.1f", percentile(0.5), percentile(0.9), percentile(0.99)))
}
