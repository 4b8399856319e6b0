#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Dispatch
import Assets
import Foundation
import Synchronization
import Threading

/// Runs a subprocess with `posix_spawn` without blocking Swift's cooperative thread pool.
///
/// Why not Foundation's `Process`: on Linux it costs several milliseconds more per spawn (a
/// run-loop thread, descriptor scanning), which was most of the provider's overhead over calling
/// espeak-ng directly (see bench/speech). Here the caller's task awaits one continuation; the
/// blocking parts run on one Dispatch thread: it writes standard input (larger input than the pipe
/// buffer gets a writer thread of its own so the child can never stall), drains standard output,
/// reaps the child with `waitpid` and reads standard error from an anonymous memory file (or, where
/// `memfd_create` is missing, a pipe drained by a second thread). Every descriptor is closed on
/// every path.
///
/// Arguments go through `argv` without a shell; callers keep untrusted text out of them (it goes
/// through standard input). The child gets `environ`, default signal dispositions (SIGPIPE is
/// ignored in this process, see below) and no descriptors but 0, 1 and 2.
enum ProcessRunner {
    struct Output: Sendable {
        var status: Int32
        var stdout: Data
        var stderr: Data
    }

    /// Why a subprocess could not be started.
    struct SpawnError: Error, CustomStringConvertible {
        var path: String
        var code: Int32
        var description: String { "cannot run \(path): \(String(cString: strerror(code)))" }
    }

    /// Collects the results of the concurrent parts of one run.
    ///
    /// `@unchecked Sendable`: each field is written by exactly one Dispatch block before its
    /// `group.leave()` and read only in `group.notify`, which the group orders after all leaves.
    private final class Collector: @unchecked Sendable {
        var stdout = Data()
        var stderr = Data()
        var status: Int32 = -1
    }

    /// Writing to a pipe whose reader exited must fail with EPIPE, not kill this process:
    /// ignore SIGPIPE once (process-wide; SwiftNIO does the same for its sockets).
    static let ignoreSIGPIPE: Void = { _ = signal(SIGPIPE, SIG_IGN) }()

    /// What a leak check needs to tell this task's descriptors from everyone else's: the
    /// identity (device, inode) of every descriptor the runs it witnesses open. Pipe and memory
    /// file inodes are not reused while the system runs, so an identity still open after a run
    /// returned is that run's leak, whatever else the process opened meanwhile.
    final class DescriptorWitness: Sendable {
        struct Identity: Hashable, Sendable { var device: UInt64; var inode: UInt64 }
        private let seen = Mutex<Set<Identity>>([])

        init() {}

        /// Every identity recorded so far.
        var identities: Set<Identity> { seen.withLock { $0 } }

        func record(_ descriptors: [Int32]) {
            let found = descriptors.compactMap(Self.identity(of:))
            seen.withLock { $0.formUnion(found) }
        }

        /// The identity of an open descriptor, or nil when it is not open.
        static func identity(of fd: Int32) -> Identity? {
            guard fd >= 0 else { return nil }
            var info = stat()
            guard fstat(fd, &info) == 0 else { return nil }
            return Identity(device: UInt64(info.st_dev), inode: UInt64(info.st_ino))
        }
    }

    /// Set by a test around the runs it checks; nil (and free) otherwise.
    @TaskLocal static var witness: DescriptorWitness?

    static func run(executable: URL, arguments: [String], stdin: Data) async throws -> Output {
        _ = ignoreSIGPIPE
        var inPipe: [Int32] = [-1, -1], outPipe: [Int32] = [-1, -1], errPipe: [Int32] = [-1, -1]
        // Standard error goes to an anonymous memory file when the kernel has them: it is read
        // once after the child exits, saving a thread and its wake-ups per run. Otherwise a pipe.
        let errMemory = GlibcExtras.memfdCreate.map { $0("reparto-stderr", UInt32(MFD_CLOEXEC_FLAG)) } ?? -1
        func closeAll() { for fd in inPipe + outPipe + errPipe + [errMemory] where fd >= 0 { close(fd) } }
        guard makePipe(&inPipe), makePipe(&outPipe), errMemory >= 0 || makePipe(&errPipe) else {
            let code = errno
            closeAll()
            throw SpawnError(path: executable.path, code: code)
        }
        witness?.record(inPipe + outPipe + errPipe + [errMemory])
        let pid: pid_t
        do {
            pid = try spawn(executable.path, arguments: arguments, stdin: inPipe[0], stdout: outPipe[1],
                            stderr: errMemory >= 0 ? errMemory : errPipe[1])
        } catch {
            closeAll()
            throw error
        }
        // The child has its copies; keep only our ends.
        close(inPipe[0]); close(outPipe[1])
        if errMemory < 0 { close(errPipe[1]) }
        let writeFD = inPipe[1], readFD = outPipe[0], errFD = errMemory >= 0 ? errMemory : errPipe[0]

        let collector = Collector()
        let group = DispatchGroup()
        // Blocking writes, reads and waitpid, each on a queue of its own (see BlockingWork).
        let queue = { BlockingWork.queue("reparto.process") }
        let inlineInput = stdin.count <= 32 * 1024  // the pipe buffer is 64 KiB: this write cannot block
        @Sendable func writeInput() {
            stdin.withUnsafeBytes { raw in
                var offset = 0
                while offset < raw.count {
                    let n = write(writeFD, raw.baseAddress! + offset, raw.count - offset)
                    if n < 0 { if errno == EINTR { continue }; break }  // EPIPE: the child stopped reading; its status tells
                    offset += n
                }
            }
            close(writeFD)
        }
        return await withCheckedContinuation { (continuation: CheckedContinuation<Output, Never>) in
            if !inlineInput {
                group.enter()
                queue().async { writeInput(); group.leave() }
            }
            group.enter()
            queue().async {
                if inlineInput { writeInput() }
                collector.stdout = readAll(readFD)
                close(readFD)
                var status: Int32 = 0
                while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
                collector.status = shellStatus(status)
                if errMemory >= 0 {  // the child is gone: the memory file is complete
                    lseek(errFD, 0, SEEK_SET)
                    collector.stderr = readAll(errFD)
                    close(errFD)
                }
                group.leave()
            }
            if errMemory < 0 {
                group.enter()
                queue().async {
                    collector.stderr = readAll(errFD)
                    close(errFD)
                    group.leave()
                }
            }
            group.notify(queue: queue()) {
                continuation.resume(returning: Output(status: collector.status, stdout: collector.stdout, stderr: collector.stderr))
            }
        }
    }

    static func spawn(_ path: String, arguments: [String], stdin: Int32, stdout: Int32, stderr: Int32) throws(SpawnError) -> pid_t {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_adddup2(&actions, stdin, 0)
        posix_spawn_file_actions_adddup2(&actions, stdout, 1)
        posix_spawn_file_actions_adddup2(&actions, stderr, 2)
        if let closeFrom = GlibcExtras.addCloseFrom { _ = closeFrom(&actions, 3) }  // nothing else leaks into the child

        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var defaults = sigset_t()
        sigemptyset(&defaults)
        sigaddset(&defaults, SIGPIPE)
        posix_spawnattr_setsigdefault(&attributes, &defaults)
        var noMask = sigset_t()
        sigemptyset(&noMask)
        posix_spawnattr_setsigmask(&attributes, &noMask)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK))

        let argv: [UnsafeMutablePointer<CChar>?] = ([path] + arguments).map { strdup($0) } + [nil]
        defer { for p in argv { free(p) } }
        var pid: pid_t = 0
        let code = posix_spawn(&pid, path, &actions, &attributes, argv, environ)
        guard code == 0 else { throw SpawnError(path: path, code: code) }
        return pid
    }

    /// A pipe whose both ends are close-on-exec from the start (`pipe2`), so a concurrent spawn on
    /// another thread cannot inherit them; falls back to `pipe` + `fcntl` if `pipe2` is missing.
    static func makePipe(_ fds: inout [Int32]) -> Bool {
        if let pipe2 = GlibcExtras.pipe2 {
            return fds.withUnsafeMutableBufferPointer { pipe2($0.baseAddress!, O_CLOEXEC) } == 0
        }
        guard pipe(&fds) == 0 else { return false }
        for fd in fds { _ = fcntl(fd, F_SETFD, FD_CLOEXEC) }
        return true
    }

    private static func readAll(_ fd: Int32) -> Data {
        var data = Data()
        var buffer = [UInt8](repeating: 0, count: 64 * 1024)
        while true {
            let n = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress!, $0.count) }
            if n > 0 { data.append(contentsOf: buffer[0..<n]) } else if n < 0 && errno == EINTR { continue } else { break }
        }
        return data
    }
}

/// `MFD_CLOEXEC` from <sys/mman.h>.
private let MFD_CLOEXEC_FLAG: Int32 = 1

/// glibc functions the Swift Glibc module does not export (they sit behind `_GNU_SOURCE`),
/// looked up once with `dlsym`; nil where the C library lacks them.
private enum GlibcExtras {
    typealias Pipe2 = @convention(c) (UnsafeMutablePointer<Int32>, Int32) -> Int32
    typealias AddCloseFrom = @convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, Int32) -> Int32

    typealias MemfdCreate = @convention(c) (UnsafePointer<CChar>, UInt32) -> Int32

    static let pipe2: Pipe2? = symbol("pipe2")
    /// `memfd_create` (glibc ≥ 2.27, Linux ≥ 3.17).
    static let memfdCreate: MemfdCreate? = symbol("memfd_create")
    /// `posix_spawn_file_actions_addclosefrom_np` (glibc ≥ 2.34).
    static let addCloseFrom: AddCloseFrom? = symbol("posix_spawn_file_actions_addclosefrom_np")

    private static func symbol<T>(_ name: String) -> T? {
        guard let handle = dlopen(nil, RTLD_NOW), let pointer = dlsym(handle, name) else { return nil }
        return unsafeBitCast(pointer, to: T.self)
    }
}
