#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Foundation
import Threading

extension ProcessRunner {
    /// How a run under a deadline ended.
    struct BoundedOutput: Sendable {
        /// Exit code, or 128 + signal number like a shell.
        var status: Int32
        /// The end of standard error: at most the limit given, the part the tools print last.
        var stderr: Data
        /// The run outlived its deadline and was killed.
        var timedOut: Bool
    }

    /// Blocking: runs `executable` with standard input and output on the null device, keeps the
    /// last `stderrLimit` bytes of standard error, and kills the child (SIGKILL) if it has not
    /// exited by `timeout`. Call it off the cooperative pool.
    ///
    /// Why not Foundation's `Process`: its `waitUntilExit` has no deadline, and on Linux it learns
    /// of the exit through a socket the child inherits, so it waits as long as anything the child
    /// left behind holds that socket. Here one thread polls the child's standard error against
    /// the deadline and then reaps the child with `waitpid`; the child is not reaped before the
    /// kill, so its pid cannot have been reused by then.
    @available(*, noasync, message: "runs a child and waits; call it off the cooperative pool")
    static func runBounded(executable: URL, arguments: [String], timeout: Duration,
                           stderrLimit: Int = 1 << 20) throws(SpawnError) -> BoundedOutput {
        _ = ignoreSIGPIPE
        let null = open("/dev/null", O_RDWR | O_CLOEXEC)
        guard null >= 0 else { throw SpawnError(path: executable.path, code: errno) }
        defer { close(null) }
        var errPipe: [Int32] = [-1, -1]
        guard makePipe(&errPipe) else { throw SpawnError(path: executable.path, code: errno) }
        witness?.record(errPipe)
        let pid: pid_t
        do {
            pid = try spawn(executable.path, arguments: arguments, stdin: null, stdout: null, stderr: errPipe[1])
        } catch {
            close(errPipe[0]); close(errPipe[1])
            throw error
        }
        close(errPipe[1])
        defer { close(errPipe[0]) }

        let deadline = ContinuousClock.now.advanced(by: timeout)
        var tail = Data()
        var timedOut = false
        var buffer = [UInt8](repeating: 0, count: 64 * 1024)
        reading: while true {
            let left = ContinuousClock.now.duration(to: deadline)
            guard left > .zero else { timedOut = true; break }
            var ready = pollfd(fd: errPipe[0], events: Int16(POLLIN), revents: 0)
            let polled = poll(&ready, 1, left.pollTimeoutMilliseconds)
            if polled < 0 { if errno == EINTR { continue }; break }
            if polled == 0 { continue }  // the deadline check above decides
            let n = buffer.withUnsafeMutableBytes { read(errPipe[0], $0.baseAddress!, $0.count) }
            switch n {
            case 0: break reading
            case ..<0: if errno == EINTR || errno == EAGAIN { continue }; break reading
            default:
                tail.append(contentsOf: buffer[0..<n])
                if tail.count > stderrLimit { tail.removeFirst(tail.count - stderrLimit) }
            }
        }
        // Standard error closes when the child exits; one that closed it and goes on running is
        // waited for until the deadline too, in naps that grow from 0.2 ms to 20 ms.
        var status: Int32 = 0
        var nap: UInt32 = 200
        while !timedOut {
            let reaped = waitpid(pid, &status, WNOHANG)
            if reaped == pid { return BoundedOutput(status: shellStatus(status), stderr: tail, timedOut: false) }
            if reaped < 0 && errno != EINTR { break }
            if ContinuousClock.now >= deadline { timedOut = true; break }
            usleep(nap)
            nap = min(nap * 2, 20_000)
        }
        if timedOut { kill(pid, SIGKILL) }  // not reaped yet, so the pid is still the child's
        while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
        return BoundedOutput(status: shellStatus(status), stderr: tail, timedOut: timedOut)
    }

    /// Exit code, or 128 + signal number like a shell.
    static func shellStatus(_ status: Int32) -> Int32 {
        (status & 0x7f) == 0 ? (status >> 8) & 0xff : 128 + (status & 0x7f)
    }
}
