#if canImport(Glibc)
import Glibc
#endif

/// A descriptor that an owned thread's `poll()` waits on beside its connections' sockets, made
/// readable by ``wake()`` from any thread: work handed to the thread starts at once instead of
/// at the poll's next timeout.
///
/// A non-blocking pipe: wakes before the thread drains it coalesce (a full pipe already wakes).
public final class WakePipe: Sendable {
    /// Where `poll()` waits for `POLLIN`.
    public let readDescriptor: Int32
    private let writeDescriptor: Int32

    /// - Throws: ``WakePipeError`` when the process is out of descriptors.
    public init() throws(WakePipeError) {
        var fds: [Int32] = [-1, -1]
        guard pipe(&fds) == 0 else { throw WakePipeError(errno: errno) }
        for fd in fds {
            _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
            _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
        }
        readDescriptor = fds[0]
        writeDescriptor = fds[1]
    }

    deinit {
        close(readDescriptor)
        close(writeDescriptor)
    }

    /// Makes ``readDescriptor`` readable until the next ``drain()``.
    public func wake() {
        var byte: UInt8 = 1
        _ = write(writeDescriptor, &byte, 1)
    }

    /// Reads every pending wake (never blocks).
    public func drain() {
        var buffer = [UInt8](repeating: 0, count: 64)
        while read(readDescriptor, &buffer, buffer.count) > 0 {}
    }
}

/// The process could not make a pipe (out of descriptors).
public struct WakePipeError: Error, Sendable, CustomStringConvertible {
    public let errno: Int32
    public var description: String { "cannot create a wake-up pipe (errno \(errno))" }
}
