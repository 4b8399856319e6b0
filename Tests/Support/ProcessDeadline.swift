import Dispatch
import Foundation
#if canImport(Glibc)
import Glibc
#endif
import Synchronization

/// A deadline for one subprocess a test started: when it passes (or ``expire()`` is called, as a
/// cancelled test does), the process and its process group get SIGTERM, then SIGKILL after
/// `grace` seconds if they are still there.
///
/// Swift Testing's `.timeLimit` cancels a test's task, but a task blocked waiting for a process
/// (a pipe read to EOF, `waitUntilExit`) does not notice cancellation: without a deadline a hung
/// `reparto … --wait` held the whole run until the outer watchdog. With one, the process dies, the
/// wait returns, and the caller reports the command that timed out (``ProcessTimedOut``).
///
/// Foundation's `Process` puts each child in a process group of its own (pgid = pid), so killing
/// the group also stops what the child started (ffmpeg, a flite helper) and nothing else.
public final class ProcessDeadline: Sendable {
    /// How the process is named in messages: the command line, shortened.
    public let command: String
    /// The deadline, in seconds after ``init``.
    public let seconds: Double
    private let process: Process
    private let grace: Double
    private let state = Mutex<(fired: Bool, finished: Bool)>((false, false))

    public init(_ process: Process, command: String, seconds: Double, grace: Double = 5) {
        self.process = process
        self.command = command
        self.seconds = seconds
        self.grace = grace
        SubprocessRegistry.add(process)
        DispatchQueue.global().asyncAfter(deadline: .now() + seconds) { [self] in expire() }
    }

    /// True once the deadline passed (or ``expire()`` ran) while the process was still running.
    public var fired: Bool { state.withLock { $0.fired } }

    /// Marks the process as waited for: the deadline will not touch it any more.
    public func finish() {
        state.withLock { $0.finished = true }
        SubprocessRegistry.remove(process)
    }

    /// Stops the process now: SIGTERM to its group, SIGKILL after the grace period.
    public func expire() {
        let act = state.withLock { state -> Bool in
            guard !state.finished, !state.fired, process.isRunning else { return false }
            state.fired = true
            return true
        }
        guard act else { return }
        FileHandle.standardError.write(Data("test subprocess deadline: `\(command)` still running after \(seconds) s; stopping it\n".utf8))
        Self.signal(process, SIGTERM)
        DispatchQueue.global().asyncAfter(deadline: .now() + grace) { [process] in
            if process.isRunning { Self.signal(process, SIGKILL) }
        }
    }

    /// Signals the process's own group when it leads one (Foundation's default), else the process.
    static func signal(_ process: Process, _ signal: Int32) {
        let pid = process.processIdentifier
        guard pid > 0, process.isRunning else { return }
        if getpgid(pid) == pid, pid != getpgrp() { kill(-pid, signal) } else { kill(pid, signal) }
    }

    /// `arguments` as a shell-like line for messages, at most about 200 characters.
    public static func describe(_ executable: String, _ arguments: [String]) -> String {
        let line = ([executable] + arguments).map { $0.contains(" ") ? "'\($0)'" : $0 }.joined(separator: " ")
        return line.count > 200 ? String(line.prefix(200)) + "…" : line
    }
}

/// A process that outlived its deadline.
public struct ProcessTimedOut: Error, CustomStringConvertible {
    public let command: String
    public let seconds: Double
    public let stdout: String
    public let stderr: String

    public init(command: String, seconds: Double, stdout: String, stderr: String) {
        self.command = command
        self.seconds = seconds
        self.stdout = stdout
        self.stderr = stderr
    }

    public var description: String {
        "`\(command)` did not finish within \(seconds) s and was killed; stdout:\n\(stdout.suffix(2000))\nstderr:\n\(stderr.suffix(2000))"
    }
}

/// Every subprocess with a live ``ProcessDeadline``: when the test process exits (all tests done,
/// or one crashed into `exit`), those still running are killed, so no `reparto worker` outlives
/// the run that started it and keeps consuming CPU and connections in the next one.
public enum SubprocessRegistry {
    private static let processes = Mutex<[ObjectIdentifier: Process]>([:])
    private static let installed = Mutex(false)

    static func add(_ process: Process) {
        installOnce()
        processes.withLock { $0[ObjectIdentifier(process)] = process }
    }

    static func remove(_ process: Process) {
        _ = processes.withLock { $0.removeValue(forKey: ObjectIdentifier(process)) }
    }

    /// Kills every registered process still running (their groups, SIGKILL).
    public static func killAll() {
        for process in processes.withLock({ Array($0.values) }) { ProcessDeadline.signal(process, SIGKILL) }
    }

    private static func installOnce() {
        let first = installed.withLock { installed -> Bool in
            defer { installed = true }
            return !installed
        }
        if first { atexit { SubprocessRegistry.killAll() } }
    }
}

/// What a finished subprocess printed.
public struct CapturedOutput: Sendable {
    public var status: Int32
    public var stdout: String
    public var stderr: String
    /// stdout's bytes as written (audio, images): `stdout` is their UTF-8 reading.
    public var stdoutData: Data

    public init(status: Int32, stdout: String, stderr: String, stdoutData: Data? = nil) {
        self.status = status
        self.stdout = stdout
        self.stderr = stderr
        self.stdoutData = stdoutData ?? Data(stdout.utf8)
    }
}

/// Runs `executable` to completion under a deadline, capturing both streams, never blocking the
/// cooperative pool (pipe reads and the exit wait run on threads of their own). A cancelled task
/// (a test over its `.timeLimit`) stops the process at once.
///
/// - Throws: ``ProcessTimedOut`` naming the command when it ran past `timeout` seconds.
public func runSubprocess(_ executable: URL, _ arguments: [String], environment: [String: String]? = nil,
                          stdin: Data? = nil, directory: URL? = nil, timeout: Double) async throws -> CapturedOutput {
    let process = Process()
    process.executableURL = executable
    process.arguments = arguments
    if let environment { process.environment = environment }
    if let directory { process.currentDirectoryURL = directory }
    let out = Pipe(), err = Pipe(), input = Pipe()
    process.standardOutput = out
    process.standardError = err
    process.standardInput = stdin == nil ? FileHandle.nullDevice : input
    try process.run()
    let deadline = ProcessDeadline(process, command: ProcessDeadline.describe(executable.lastPathComponent, arguments), seconds: timeout)
    defer { deadline.finish() }
    return try await withTaskCancellationHandler {
        if let stdin {
            try? await onThreadOfItsOwn {
                try input.fileHandleForWriting.write(contentsOf: stdin)
                try input.fileHandleForWriting.close()
            }
        }
        async let stdout = onThreadOfItsOwn { out.fileHandleForReading.readDataToEndOfFile() }
        async let stderr = onThreadOfItsOwn { err.fileHandleForReading.readDataToEndOfFile() }
        let (o, e) = try await (stdout, stderr)
        try await onThreadOfItsOwn { process.waitUntilExit() }
        let output = CapturedOutput(status: process.terminationStatus, stdout: String(decoding: o, as: UTF8.self),
                                    stderr: String(decoding: e, as: UTF8.self), stdoutData: o)
        if deadline.fired {
            throw ProcessTimedOut(command: deadline.command, seconds: timeout, stdout: output.stdout, stderr: output.stderr)
        }
        try Task.checkCancellation()
        return output
    } onCancel: {
        deadline.expire()
    }
}

/// Waits for `process` to exit, stopping it (SIGTERM, then SIGKILL) once `timeout` seconds have
/// passed or the calling task is cancelled. Returns false when it had to be stopped.
@discardableResult
public func waitForSubprocess(_ process: Process, command: String, timeout: Double) async -> Bool {
    let deadline = ProcessDeadline(process, command: command, seconds: timeout)
    defer { deadline.finish() }
    await withTaskCancellationHandler {
        _ = try? await onThreadOfItsOwn { process.waitUntilExit() }
    } onCancel: {
        deadline.expire()
    }
    return !deadline.fired
}

/// Runs blocking code on a dispatch thread of its own, never the cooperative pool (two threads on
/// two cores: blocking them starved every in-process worker's heartbeat in the test process).
public func onThreadOfItsOwn<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
    try await withCheckedThrowingContinuation { continuation in
        DispatchQueue(label: "test.blocking").async {
            continuation.resume(with: Result { try body() })
        }
    }
}

/// The blocking form of ``runSubprocess``, for synchronous helpers (mount, docker, a linter):
/// both streams captured, the process killed at `timeout` seconds.
///
/// - Throws: ``ProcessTimedOut`` naming the command when it ran past `timeout` seconds.
@available(*, noasync, message: "blocks its thread; use runSubprocess from async code")
public func runSubprocessBlocking(_ executable: URL, _ arguments: [String], environment: [String: String]? = nil,
                                  timeout: Double) throws -> CapturedOutput {
    let process = Process()
    process.executableURL = executable
    process.arguments = arguments
    if let environment { process.environment = environment }
    let out = Pipe(), err = Pipe()
    process.standardInput = FileHandle.nullDevice
    process.standardOutput = out
    process.standardError = err
    try process.run()
    let deadline = ProcessDeadline(process, command: ProcessDeadline.describe(executable.lastPathComponent, arguments), seconds: timeout)
    defer { deadline.finish() }
    // stderr on a second thread, so neither pipe can fill up and stall the process.
    let errors = Mutex(Data())
    let drained = DispatchGroup()
    DispatchQueue.global().async(group: drained) {
        let data = err.fileHandleForReading.readDataToEndOfFile()
        errors.withLock { $0 = data }
    }
    let output = out.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    drained.wait()
    let result = CapturedOutput(status: process.terminationStatus, stdout: String(decoding: output, as: UTF8.self),
                                stderr: String(decoding: errors.withLock { $0 }, as: UTF8.self), stdoutData: output)
    if deadline.fired {
        throw ProcessTimedOut(command: deadline.command, seconds: timeout, stdout: result.stdout, stderr: result.stderr)
    }
    return result
}
