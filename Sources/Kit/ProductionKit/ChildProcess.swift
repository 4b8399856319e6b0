import Dispatch
import Foundation
import Postgres

/// The benchmarks' child processes (`reparto bench` and every production type's own): started with Foundation's `Process`, as a shell loop would
/// run the peers (its cost per spawn is part of what the direct peers measure, so it is kept),
/// and waited for on threads of their own, never on Swift's cooperative pool.
public enum ChildProcess {
    /// Starts `command` (executable, arguments). Standard output and error go to the null device
    /// unless `inherit` is set (then they are this process's) or a `log` file is given (standard
    /// error appended to it); `stdin`/`stdout` pipes replace them where given.
    public static func start(_ command: (String, [String]), environment: [String: String]? = nil, log: URL? = nil,
                      inherit: Bool = false, stdin: Pipe? = nil, stdout: Pipe? = nil) throws -> Process {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: command.0)
        process.arguments = command.1
        if let environment { process.environment = environment }
        if let stdin { process.standardInput = stdin }
        if !inherit {
            process.standardOutput = stdout ?? FileHandle.nullDevice
            if let log, let handle = FileHandle(forWritingAtPath: log.path) {
                handle.seekToEndOfFile()
                process.standardError = handle
            } else {
                process.standardError = FileHandle.nullDevice
            }
        }
        try process.run()
        return process
    }

    /// Ends `children` (SIGTERM to those still running) and waits for each to exit.
    public static func stop(_ children: [Process]) async {
        for child in children where child.isRunning { child.terminate() }
        for child in children { _ = await exitStatus(child) }
    }

    /// Blocking: runs `command` with this process's standard output and error and returns its
    /// exit status. Only for threads of the caller's own (see ``ProcessPool``).
    @available(*, noasync)
    public static func run(_ command: (String, [String])) throws -> Int32 {
        let process = try start(command, inherit: true)
        process.waitUntilExit()
        return process.terminationStatus
    }

    /// Blocking: runs `executable arguments` with `input` on standard input and returns how many
    /// bytes it wrote to standard output.
    @available(*, noasync)
    public static func byteCount(_ command: (String, [String]), input: Data) throws -> Int {
        let stdin = Pipe(), stdout = Pipe()
        let process = try start(command, stdin: stdin, stdout: stdout)
        try stdin.fileHandleForWriting.write(contentsOf: input)
        try stdin.fileHandleForWriting.close()
        let count = stdout.fileHandleForReading.readDataToEndOfFile().count
        process.waitUntilExit()
        return count
    }

    /// The exit status of `process`, waited for on a Dispatch thread.
    public static func exitStatus(_ process: Process) async -> Int32 {
        await withCheckedContinuation { continuation in
            DispatchQueue.global().async {
                process.waitUntilExit()
                continuation.resume(returning: process.terminationStatus)
            }
        }
    }

    /// Waits for `process` and throws unless it exited 0.
    public static func expectSuccess(_ process: Process, what: String) async throws {
        let status = await exitStatus(process)
        guard status == 0 else { throw ChildProcessError(description: "\(what) exited with status \(status)") }
    }
}

extension PostgresConfiguration {
    /// `postgres://user@host:port/database`, with the TLS and GSSAPI modes if set: what a child
    /// process gets as `--database-url` (the password travels in its environment, never in argv).
    public var childProcessURL: String {
        var components = URLComponents()
        components.scheme = "postgres"
        components.user = user
        components.host = host
        components.port = port
        components.path = "/\(database)"
        let modes = [("sslmode", sslMode?.rawValue), ("gssencmode", gssEncryptionMode?.rawValue)]
            .compactMap { name, value in value.map { URLQueryItem(name: name, value: $0) } }
        if !modes.isEmpty { components.queryItems = modes }
        return components.string ?? ""
    }
}

/// A child process that did not end as it should.
public struct ChildProcessError: Error, Sendable, CustomStringConvertible {
    public let description: String
}
