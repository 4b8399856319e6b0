#if canImport(Glibc)
import Glibc
#endif
import Dispatch
import Foundation
import Synchronization
import Threading

/// One line for Piper: a checked voice (``PiperVoiceFile``), a speaker and a tempo.
public struct PiperRequest: Sendable, Hashable {
    public var modelPath: String
    public var configPath: String
    public var text: String
    /// The speaker number of a multi-speaker model (nil: the model's default).
    public var speaker: Int?
    /// Piper's `length_scale` (the model's own ÷ speed: 2 is half as fast).
    public var lengthScale: Double

    public init(modelPath: String, configPath: String, text: String, speaker: Int? = nil, lengthScale: Double = 1) {
        (self.modelPath, self.configPath, self.text, self.speaker, self.lengthScale) = (modelPath, configPath, text, speaker, lengthScale)
    }
}

/// What a helper returned for one line, and which helper process spoke it.
public struct PiperSynthesis: Sendable, Hashable {
    /// 16-bit mono PCM at the voice's sample rate.
    public var audio: LibraryAudio
    /// The helper's process id.
    public var helperPID: Int32
}

/// Long-lived Piper synthesizers for one process: Python helper processes running
/// ``PiperHelperScript`` with `piper-tts`, each owned by a thread of this pool that feeds it one
/// line at a time (never Swift's cooperative pool), each keeping the voices it loaded.
///
/// A helper starts at its thread's first line. One that exited while idle is started again before
/// the next line is sent; one that dies, hangs past ``lineTimeout`` or breaks the protocol during
/// a line is killed, and that line fails with ``SpeechError/engineFailed(provider:exitCode:message:)``
/// (``SpeechError/timeout(provider:)`` for the hang); the next line starts a new one. A cancelled
/// line that a helper is already speaking kills that helper too (its answer can no longer be
/// waited for). Helpers exit when their standard input closes, so they never outlive this process.
public final class PiperHelperPool: Sendable {
    /// How many helpers run at most (one line each at a time).
    public let size: Int
    /// Longest wait for one line's answer, voice loading included (seconds).
    public let lineTimeout: Double
    private let threads: DedicatedThreads<PiperRequest, PiperSynthesis>

    /// - Parameters:
    ///   - python: the Python with `piper-tts` (an absolute path).
    ///   - size: helpers (bounded to 1…64).
    ///   - threadsPerHelper: ONNX Runtime's intra-op threads in each helper.
    ///   - lineTimeout: longest wait for one line, in seconds.
    public convenience init(python: URL, size: Int, threadsPerHelper: Int = 1, lineTimeout: Double = 300) {
        self.init(executable: python, arguments: ["-I", "-c", PiperHelperScript.source, String(max(1, min(64, threadsPerHelper)))],
                  size: size, lineTimeout: lineTimeout)
    }

    /// A pool running `executable` with `arguments` as its helper (tests give it stand-ins).
    init(executable: URL, arguments: [String], size: Int, lineTimeout: Double) {
        let size = max(1, min(64, size))
        self.size = size
        self.lineTimeout = lineTimeout
        threads = DedicatedThreads(count: size, name: "reparto-piper") {
            var helper: PiperHelperProcess?
            return { request, cancellation in
                // A helper that broke is replaced and the line tried once more on the new one: the
                // old one may have been dying already (killed while idle, still exiting its
                // threads). A line that breaks two helpers fails.
                var attempt = 0
                while true {
                    attempt += 1
                    if let running = helper, running.hasExited() {
                        _ = running.stop()
                        helper = nil
                    }
                    do throws(PiperHelperFailure) {
                        if helper == nil { helper = try PiperHelperProcess.start(executable: executable, arguments: arguments) }
                        return try helper!.speak(request, timeout: lineTimeout, cancellation: cancellation)
                    } catch {
                        let status = helper?.stop() ?? -1
                        helper = nil
                        switch error.kind {
                        case .cancelled: return .failure(CancellationError())
                        case .timeout: return .failure(SpeechError.timeout(provider: PiperProvider.providerID))
                        case .broken where attempt < 2: continue
                        case .broken: return .failure(SpeechError.engineFailed(provider: PiperProvider.providerID, exitCode: status,
                                                                              message: "Piper helper: \(error.description)"))
                        }
                    }
                }
            }
        }
    }

    /// Speaks `request` on the next free helper; cancelling skips a line still queued.
    /// - Throws: ``SpeechError``, or `CancellationError`.
    public func synthesize(_ request: PiperRequest) async throws -> PiperSynthesis {
        try await threads.run(request)
    }

    private static let pools = Mutex<[String: PiperHelperPool]>([:])

    /// The process's pool for `python` with these settings, made at the first call: every
    /// ``PiperProvider`` of a process (each registry a worker or command builds) shares its helpers.
    public static func shared(python: URL, size: Int, threadsPerHelper: Int) -> PiperHelperPool {
        let key = "\(python.path)\u{0}\(size)\u{0}\(threadsPerHelper)"
        return pools.withLock { pools in
            if let pool = pools[key] { return pool }
            let pool = PiperHelperPool(python: python, size: size, threadsPerHelper: threadsPerHelper)
            pools[key] = pool
            return pool
        }
    }
}

/// Why a line could not be spoken by a helper.
struct PiperHelperFailure: Error, CustomStringConvertible {
    enum Kind { case broken, timeout, cancelled }
    var kind: Kind
    var description: String

    static func broken(_ description: String) -> PiperHelperFailure { .init(kind: .broken, description: description) }
}

/// One running helper and our ends of its pipes (non-blocking, waited on with `poll`).
final class PiperHelperProcess {
    let pid: pid_t
    private let input: Int32
    private let output: Int32
    private var exitStatus: Int32?

    private init(pid: pid_t, input: Int32, output: Int32) {
        (self.pid, self.input, self.output) = (pid, input, output)
    }

    /// Largest answer accepted: an hour of 48 kHz audio.
    static let maximumPayload = 48_000 * 2 * 3600

    @available(*, noasync)
    static func start(executable: URL, arguments: [String]) throws(PiperHelperFailure) -> PiperHelperProcess {
        _ = ProcessRunner.ignoreSIGPIPE  // a helper that died must fail our write, not end this process
        var inPipe: [Int32] = [-1, -1], outPipe: [Int32] = [-1, -1]
        guard ProcessRunner.makePipe(&inPipe), ProcessRunner.makePipe(&outPipe) else {
            for fd in inPipe + outPipe where fd >= 0 { close(fd) }
            throw .broken("cannot create pipes: \(String(cString: strerror(errno)))")
        }
        let pid: pid_t
        do {
            pid = try ProcessRunner.spawn(executable.path, arguments: arguments, stdin: inPipe[0], stdout: outPipe[1], stderr: 2)
        } catch {
            for fd in inPipe + outPipe { close(fd) }
            throw .broken("\(error)")
        }
        close(inPipe[0])
        close(outPipe[1])
        for fd in [inPipe[1], outPipe[0]] { _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK) }
        return PiperHelperProcess(pid: pid, input: inPipe[1], output: outPipe[0])
    }

    /// True when the process has exited (and is reaped).
    @available(*, noasync)
    func hasExited() -> Bool {
        if exitStatus != nil { return true }
        var status: Int32 = 0
        switch waitpid(pid, &status, WNOHANG) {
        case pid:
            exitStatus = Self.decode(status)
            return true
        case -1 where errno == ECHILD:
            // Reaped by someone else (a process-wide child reaper): gone all the same.
            exitStatus = -1
            return true
        default:
            return false
        }
    }

    /// Sends one line and reads its answer.
    @available(*, noasync)
    func speak(_ request: PiperRequest, timeout: Double, cancellation: CancellationFlag) throws(PiperHelperFailure) -> Result<PiperSynthesis, any Error> {
        let deadline = DispatchTime.now().uptimeNanoseconds + UInt64(max(0, min(timeout, 86_400)) * 1e9)
        try write(Self.frame(request), deadline: deadline, cancellation: cancellation)
        let header = try read(PiperHelperScript.responseHeader, deadline: deadline, cancellation: cancellation)
        let status = Self.u32(header, 0), sampleRate = Int(Self.u32(header, 4)), count = Int(Self.u32(header, 8))
        guard count <= Self.maximumPayload else { throw .broken("it announced \(count) bytes") }
        let payload = try read(count, deadline: deadline, cancellation: cancellation)
        var message: String { String(decoding: payload.prefix(1000), as: UTF8.self).split(whereSeparator: \.isNewline).joined(separator: " ") }
        switch status {
        case 0:
            guard (8_000...192_000).contains(sampleRate), count % 2 == 0 else {
                throw .broken("it answered \(count) bytes at \(sampleRate) Hz")
            }
            return .success(PiperSynthesis(audio: LibraryAudio(pcm: payload, sampleRate: sampleRate), helperPID: pid))
        case 1:
            return .failure(SpeechError.invalidVoiceFile(path: request.modelPath, reason: "Piper cannot load it: \(message)"))
        case 2, 3:
            return .failure(SpeechError.engineError(provider: PiperProvider.providerID, message: message))
        default:
            throw .broken("it answered status \(status)")
        }
    }

    /// Closes the pipes (the helper exits at end of input), kills it in case it hangs, reaps it.
    @available(*, noasync)
    func stop() -> Int32 {
        close(input)
        close(output)
        if let exitStatus { return exitStatus }
        kill(pid, SIGKILL)
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
        exitStatus = Self.decode(status)
        return exitStatus!
    }

    /// Exit code, or 128 + signal number like a shell.
    private static func decode(_ status: Int32) -> Int32 {
        (status & 0x7f) == 0 ? (status >> 8) & 0xff : 128 + (status & 0x7f)
    }

    static func frame(_ request: PiperRequest) -> Data {
        let model = Data(request.modelPath.utf8), config = Data(request.configPath.utf8), text = Data(request.text.utf8)
        var data = Data(capacity: PiperHelperScript.requestHeader + model.count + config.count + text.count)
        data.appendLE32(UInt32(clamping: model.count))
        data.appendLE32(UInt32(clamping: config.count))
        data.appendLE32(UInt32(clamping: text.count))
        data.appendLE32(UInt32(bitPattern: Int32(clamping: request.speaker ?? -1)))
        var scale = (request.lengthScale.isFinite ? request.lengthScale : 1).bitPattern.littleEndian
        withUnsafeBytes(of: &scale) { data.append(contentsOf: $0) }
        data.append(model)
        data.append(config)
        data.append(text)
        return data
    }

    static func u32(_ data: Data, _ offset: Int) -> UInt32 {
        data.withUnsafeBytes { UInt32(littleEndian: $0.loadUnaligned(fromByteOffset: offset, as: UInt32.self)) }
    }

    /// Waits until `fd` is ready for `events`, in slices so a cancellation is seen within a quarter second.
    @available(*, noasync)
    private func wait(_ fd: Int32, events: Int16, deadline: UInt64, cancellation: CancellationFlag) throws(PiperHelperFailure) {
        while true {
            if cancellation.isCancelled { throw PiperHelperFailure(kind: .cancelled, description: "cancelled") }
            let now = DispatchTime.now().uptimeNanoseconds
            guard now < deadline else { throw PiperHelperFailure(kind: .timeout, description: "no answer in time") }
            var descriptor = pollfd(fd: fd, events: events, revents: 0)
            let slice = Int32(min(250, (deadline - now) / 1_000_000 + 1))
            let ready = poll(&descriptor, 1, slice)
            if ready > 0 { return }  // readable, writable, or hung up: the read or write says which
            if ready < 0 && errno != EINTR { throw .broken("poll failed: \(String(cString: strerror(errno)))") }
        }
    }

    @available(*, noasync)
    private func write(_ data: Data, deadline: UInt64, cancellation: CancellationFlag) throws(PiperHelperFailure) {
        var offset = 0
        while offset < data.count {
            let n = data.withUnsafeBytes { Glibc.write(input, $0.baseAddress! + offset, data.count - offset) }
            if n > 0 { offset += n; continue }
            if n < 0 && (errno == EAGAIN || errno == EINTR) {
                try wait(input, events: Int16(POLLOUT), deadline: deadline, cancellation: cancellation)
                continue
            }
            throw .broken("it stopped reading")
        }
    }

    @available(*, noasync)
    private func read(_ count: Int, deadline: UInt64, cancellation: CancellationFlag) throws(PiperHelperFailure) -> Data {
        var data = Data(count: count)
        var offset = 0
        while offset < count {
            let n = data.withUnsafeMutableBytes { Glibc.read(output, $0.baseAddress! + offset, count - offset) }
            if n > 0 { offset += n; continue }
            if n < 0 && (errno == EAGAIN || errno == EINTR) {
                try wait(output, events: Int16(POLLIN), deadline: deadline, cancellation: cancellation)
                continue
            }
            throw .broken(offset == 0 && count == PiperHelperScript.responseHeader ? "it exited without answering" : "it stopped mid-answer")
        }
        return data
    }
}
