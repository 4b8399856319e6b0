import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A PostgreSQL server of a test's own, in a temporary directory on a free loopback port: for
/// tests that need a server set up differently from the shared one `scripts/services` runs (a
/// primary with a streaming standby), which they must not touch.
///
/// The server runs in the foreground as a child of the test process (`postgres -D …`, through
/// `runuser -u postgres` when the test runs as root, as `scripts/services` does), under a
/// ``ProcessDeadline``: a server the test forgot, or one left by a crashed test process, is
/// killed with it. ``stop()`` shuts it down fast; ``withPrimaryAndStandby(_:)`` always does.
public final class LocalPostgresServer: Sendable {
    /// Its data directory.
    public let dataDirectory: URL
    /// The directory of its Unix-domain socket (local connections are trusted there).
    public let socketDirectory: URL
    /// Its TCP port on 127.0.0.1 (password authentication, SCRAM).
    public let port: Int
    /// What the server printed, for failure messages.
    public let logFile: URL
    private let process: Process
    private let deadline: ProcessDeadline

    /// The PostgreSQL 15 binaries: `REPARTO_PG_BIN` (as `scripts/services` reads it), else Debian's.
    public static var binaries: URL {
        URL(fileURLWithPath: ProcessInfo.processInfo.environment["REPARTO_PG_BIN"] ?? "/usr/lib/postgresql/15/bin")
    }

    /// The longest a server may run: past every suite's time limit, so it only catches one nobody stopped.
    static let lifetime: Double = 900

    private init(dataDirectory: URL, socketDirectory: URL, port: Int, logFile: URL, process: Process, deadline: ProcessDeadline) {
        (self.dataDirectory, self.socketDirectory, self.port, self.logFile, self.process, self.deadline)
            = (dataDirectory, socketDirectory, port, logFile, process, deadline)
    }

    /// Starts the server of `dataDirectory` on `port` and waits (at most `timeout` seconds) until it
    /// accepts connections (a standby: once it is consistent and lets readers in).
    static func start(_ dataDirectory: URL, port: Int, socketDirectory: URL, timeout: Double = 60) async throws -> LocalPostgresServer {
        let logFile = dataDirectory.deletingLastPathComponent().appendingPathComponent("\(dataDirectory.lastPathComponent).log")
        _ = FileManager.default.createFile(atPath: logFile.path, contents: nil)
        let log = try FileHandle(forWritingTo: logFile)
        defer { try? log.close() }
        let (executable, arguments) = asServerUser(binaries.appendingPathComponent("postgres"), ["-D", dataDirectory.path])
        let process = Process()
        process.executableURL = executable
        process.arguments = arguments
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = log
        process.standardError = log
        try process.run()
        let deadline = ProcessDeadline(process, command: ProcessDeadline.describe("postgres", arguments), seconds: lifetime)
        let server = LocalPostgresServer(dataDirectory: dataDirectory, socketDirectory: socketDirectory, port: port,
                                         logFile: logFile, process: process, deadline: deadline)
        do {
            try await server.waitUntilReady(timeout: timeout)
        } catch {
            await server.stop()
            throw error
        }
        return server
    }

    /// Waits until `pg_isready` says the server accepts connections.
    private func waitUntilReady(timeout: Double) async throws {
        let end = ContinuousClock.now + .seconds(timeout)
        while true {
            let probe = try await runSubprocess(Self.binaries.appendingPathComponent("pg_isready"),
                                                ["-q", "-h", "127.0.0.1", "-p", "\(port)", "-t", "2"], timeout: 30)
            if probe.status == 0 { return }
            guard process.isRunning else { throw Failure(what: "PostgreSQL in \(dataDirectory.path) exited at start", log: logTail) }
            if ContinuousClock.now > end {
                throw Failure(what: "PostgreSQL in \(dataDirectory.path) did not accept connections within \(timeout) s", log: logTail)
            }
            try await Task.sleep(for: .milliseconds(100))
        }
    }

    /// Shuts the server down (`pg_ctl stop -m fast`), then waits for it to exit; past either
    /// deadline it is killed. Safe to call twice.
    public func stop() async {
        if process.isRunning {
            let (executable, arguments) = Self.asServerUser(Self.binaries.appendingPathComponent("pg_ctl"),
                                                            ["stop", "-D", dataDirectory.path, "-m", "fast", "-w", "-t", "30"])
            _ = try? await runSubprocess(executable, arguments, timeout: 45)
        }
        await waitForSubprocess(process, command: deadline.command, timeout: 30)
        deadline.finish()
    }

    /// The last lines the server logged.
    public var logTail: String {
        let text = (try? String(contentsOf: logFile, encoding: .utf8)) ?? ""
        return text.split(separator: "\n", omittingEmptySubsequences: false).suffix(20).joined(separator: "\n")
    }

    /// A server that did not start, with what it logged.
    public struct Failure: Error, CustomStringConvertible {
        public let what: String
        public let log: String
        public var description: String { "\(what); its log ends:\n\(log)" }
    }

    /// `executable arguments`, run as the `postgres` user when the test runs as root (PostgreSQL
    /// refuses to run as root), else as is.
    static func asServerUser(_ executable: URL, _ arguments: [String]) -> (URL, [String]) {
        guard geteuid() == 0 else { return (executable, arguments) }
        return (URL(fileURLWithPath: "/usr/sbin/runuser"), ["-u", "postgres", "--", executable.path] + arguments)
    }

    /// Runs one of the PostgreSQL binaries to completion as the server's user; throws with its
    /// output when it fails.
    static func runTool(_ name: String, _ arguments: [String], timeout: Double = 120) async throws {
        let (executable, arguments) = asServerUser(binaries.appendingPathComponent(name), arguments)
        let output = try await runSubprocess(executable, arguments, timeout: timeout)
        guard output.status == 0 else {
            throw Failure(what: "\(name) exited with status \(output.status)", log: output.stdout + output.stderr)
        }
    }
}

/// A primary and a streaming hot standby of it, both of the test's own.
public struct LocalPostgresPair: Sendable {
    /// The primary, initialised by `initdb`: superuser `postgres` with ``superuserPassword`` over
    /// TCP, trusted over its socket.
    public let primary: LocalPostgresServer
    /// A standby made by `pg_basebackup -R` from the primary, replaying its WAL as it streams.
    public let standby: LocalPostgresServer
    /// The `postgres` superuser's password (over TCP).
    public let superuserPassword: String
}

extension LocalPostgresPair {
    /// Initialises and starts a primary, runs `prepare` on it (roles and databases the standby
    /// should start with; they would replicate later too), copies it with `pg_basebackup -R` and
    /// starts the standby, then runs `body`. Both servers are stopped and their directory removed
    /// afterwards, whether `body` succeeded or not.
    public static func withPrimaryAndStandby<T: Sendable>(
        prepare: (LocalPostgresServer, _ superuserPassword: String) async throws -> Void = { _, _ in },
        _ body: (LocalPostgresPair) async throws -> T
    ) async throws -> T {
        let base = FileManager.default.temporaryDirectory.appendingPathComponent("reparto-pg-\(UUID().uuidString.prefix(8).lowercased())")
        try FileManager.default.createDirectory(at: base, withIntermediateDirectories: false, attributes: [.posixPermissions: 0o700])
        var started: [LocalPostgresServer] = []
        do {
            let result = try await run(in: base, started: &started, prepare: prepare, body)
            await stopAll(started, base: base)
            return result
        } catch {
            await stopAll(started, base: base)
            throw error
        }
    }

    private static func stopAll(_ servers: [LocalPostgresServer], base: URL) async {
        // The standby first: stopping the primary first leaves it retrying the stream.
        for server in servers.reversed() { await server.stop() }
        try? FileManager.default.removeItem(at: base)
    }

    private static func run<T>(in base: URL, started: inout [LocalPostgresServer],
                               prepare: (LocalPostgresServer, String) async throws -> Void,
                               _ body: (LocalPostgresPair) async throws -> T) async throws -> T {
        let socketDirectory = base.appendingPathComponent("run")
        try FileManager.default.createDirectory(at: socketDirectory, withIntermediateDirectories: false)
        let password = UUID().uuidString
        let passwordFile = base.appendingPathComponent("pwfile")
        try Data(password.utf8).write(to: passwordFile)
        try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: passwordFile.path)
        if geteuid() == 0 {
            guard let user = getpwnam("postgres") else { throw LocalPostgresServer.Failure(what: "there is no postgres user", log: "") }
            for path in [base, socketDirectory, passwordFile] { chown(path.path, user.pointee.pw_uid, user.pointee.pw_gid) }
        }

        let primaryDirectory = base.appendingPathComponent("primary")
        try await LocalPostgresServer.runTool("initdb", [
            "-D", primaryDirectory.path, "-U", "postgres", "--pwfile=\(passwordFile.path)", "--auth-local=trust",
            "--auth-host=scram-sha-256", "-E", "UTF8", "--locale=C.UTF-8", "--no-sync",
        ])
        try? FileManager.default.removeItem(at: passwordFile)
        // Small and quick: a test's handful of connections, no fsync (the data is thrown away).
        try append(to: primaryDirectory.appendingPathComponent("postgresql.conf"), """

            listen_addresses = '127.0.0.1'
            unix_socket_directories = '\(socketDirectory.path)'
            max_connections = 40
            shared_buffers = 32MB
            fsync = off

            """)
        let primary = try await startOnFreePort(primaryDirectory, socketDirectory: socketDirectory)
        started.append(primary)
        try await prepare(primary, password)

        // The standby: a base backup over the primary's socket (replication is trusted there by
        // initdb's pg_hba.conf), -R writes standby.signal and primary_conninfo; hot_standby is on.
        let standbyDirectory = base.appendingPathComponent("standby")
        try await LocalPostgresServer.runTool("pg_basebackup", [
            "-D", standbyDirectory.path, "-R", "-X", "stream", "-c", "fast", "--no-sync",
            "-h", socketDirectory.path, "-p", "\(primary.port)", "-U", "postgres",
        ])
        let standby = try await startOnFreePort(standbyDirectory, socketDirectory: socketDirectory)
        started.append(standby)
        return try await body(LocalPostgresPair(primary: primary, standby: standby, superuserPassword: password))
    }

    /// Starts the server of `dataDirectory` on a port the kernel picked free. The port is released
    /// before the server binds it, so another process may take it first: then the next pick (the
    /// `port` line appended last wins).
    private static func startOnFreePort(_ dataDirectory: URL, socketDirectory: URL) async throws -> LocalPostgresServer {
        var attempt = 1
        while true {
            let (socket, port) = try LoopbackListener.open()
            close(socket)
            try append(to: dataDirectory.appendingPathComponent("postgresql.conf"), "port = \(port)\n")
            do {
                return try await LocalPostgresServer.start(dataDirectory, port: port, socketDirectory: socketDirectory)
            } catch let failure as LocalPostgresServer.Failure where attempt < 3 && failure.log.contains("could not bind") {
                attempt += 1
            }
        }
    }

    private static func append(to file: URL, _ text: String) throws {
        let handle = try FileHandle(forWritingTo: file)
        defer { try? handle.close() }
        try handle.seekToEnd()
        try handle.write(contentsOf: Data(text.utf8))
    }
}
