import CLibPQ
import Foundation
import Threading
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// One libpq connection (`PGconn`).
///
/// Not `Sendable`: a connection must be used by exactly one thread at a time, and every call
/// blocks that thread until the server answers, so all blocking methods are
/// `@available(*, noasync)`. Async code uses ``PostgresClient``, which runs each pooled connection
/// on its own serial queue, never on Swift's cooperative thread pool.
public final class PostgresConnection {
    /// `nil` once closed.
    private var handle: OpaquePointer?
    /// The configuration this connection was opened with.
    public let configuration: PostgresConfiguration
    private var savepointDepth = 0
    /// SQL → the name it is prepared under on this connection (``query(prepared:_:)``).
    private var preparedStatements: [String: String] = [:]
    /// Statements forgotten after the server lost them; keeps new names from reusing old ones.
    private var discardedStatements = 0
    /// Set by the notice receiver when the server sent a FATAL/PANIC error while the connection
    /// was idle (e.g. `pg_terminate_backend`, shutdown): libpq hands such a message to the notice
    /// receiver and still reports `CONNECTION_OK` until it reads end-of-file. Heap-allocated so
    /// its address can be the receiver's context; only touched on the connection's thread.
    private let serverEndedSession: UnsafeMutablePointer<Bool>

    private init(handle: OpaquePointer, configuration: PostgresConfiguration) {
        self.handle = handle
        self.configuration = configuration
        serverEndedSession = .allocate(capacity: 1)
        serverEndedSession.initialize(to: false)
        PQsetNoticeReceiver(handle, { context, result in
            guard let context, let result,
                  let severity = PQresultErrorField(result, Int32(UInt8(ascii: "V")))
            else { return }
            let level = String(cString: severity)
            if level == "FATAL" || level == "PANIC" {
                context.assumingMemoryBound(to: Bool.self).pointee = true
            }
            // Other notices (WARNING, NOTICE, …) are discarded rather than printed to stderr.
        }, UnsafeMutableRawPointer(serverEndedSession))
    }

    deinit {
        if let handle { PQfinish(handle) }
        serverEndedSession.deinitialize(count: 1)
        serverEndedSession.deallocate()
    }

    // MARK: connecting

    /// Opens a connection with `PQconnectdbParams` (keyword/value arrays, so the password is never
    /// part of a connection string), and sets `client_encoding=UTF8`, `DateStyle=ISO`,
    /// `TimeZone=UTC` and `application_name` in the startup packet. Server notices are discarded.
    ///
    /// - Throws: ``PostgresError`` of kind ``PostgresError/Kind/connection``; its message is libpq's,
    ///   with the password (should it ever appear) masked.
    @available(*, noasync)
    public static func connect(_ configuration: PostgresConfiguration) throws(PostgresError) -> PostgresConnection {
        // expand_dbname = 0: a database name is never parsed as a connection string.
        let handle = withConnectionParameters(configuration) { keywords, values in
            PQconnectdbParams(keywords, values, 0)
        }
        guard let handle else {
            throw PostgresError(.connection, message: "libpq could not allocate a connection", endpoint: configuration.endpoint)
        }
        guard PQstatus(handle) == CONNECTION_OK else {
            throw failedConnection(handle, configuration)
        }
        return PostgresConnection(handle: handle, configuration: configuration)
    }

    /// Connects like ``connect(_:)`` but without blocking for long: the handshake runs through
    /// `PQconnectStartParams`/`PQconnectPoll`, waiting on the socket in slices of at most 50 ms,
    /// and gives up with ``PostgresError/Kind/closed`` as soon as `isCancelled()` returns true,
    /// or with ``PostgresError/Kind/timeout`` after `configuration.connectTimeout` seconds
    /// (0 = no limit). ``PostgresListener`` uses it so `stop()` is prompt even while the server is
    /// unreachable.
    @available(*, noasync)
    public static func connect(
        _ configuration: PostgresConfiguration,
        isCancelled: () -> Bool
    ) throws(PostgresError) -> PostgresConnection {
        let handle = withConnectionParameters(configuration) { keywords, values in
            PQconnectStartParams(keywords, values, 0)
        }
        guard let handle else {
            throw PostgresError(.connection, message: "libpq could not allocate a connection", endpoint: configuration.endpoint)
        }
        if PQstatus(handle) == CONNECTION_BAD {
            throw failedConnection(handle, configuration)
        }
        let clock = ContinuousClock()
        let deadline = configuration.connectTimeout > 0 ? clock.now.advanced(by: .seconds(configuration.connectTimeout)) : nil
        // libpq: "act as if PQconnectPoll had last returned PGRES_POLLING_WRITING".
        var state = PGRES_POLLING_WRITING
        while true {
            switch state {
            case PGRES_POLLING_OK:
                return PostgresConnection(handle: handle, configuration: configuration)
            case PGRES_POLLING_FAILED:
                throw failedConnection(handle, configuration)
            default:
                break
            }
            if isCancelled() {
                PQfinish(handle)
                throw PostgresError(.closed, message: "the connection attempt was cancelled", endpoint: nil)
            }
            if let deadline, clock.now >= deadline {
                PQfinish(handle)
                throw PostgresError(
                    .timeout, message: "no connection within \(configuration.connectTimeout) s to \(configuration.endpoint)", endpoint: nil
                )
            }
            let socket = PQsocket(handle)
            guard socket >= 0 else {
                throw failedConnection(handle, configuration)
            }
            let events = state == PGRES_POLLING_READING ? POLLIN : POLLOUT
            var descriptor = pollfd(fd: socket, events: Int16(events), revents: 0)
            let ready = poll(&descriptor, 1, 50)
            if ready < 0, errno != EINTR {
                PQfinish(handle)
                throw PostgresError(.connection, message: "poll() failed while connecting (errno \(errno))", endpoint: configuration.endpoint)
            }
            if ready > 0 {
                state = PQconnectPoll(handle)
            }
        }
    }

    /// Calls `body` with libpq keyword/value arrays for `configuration`. The C copies are wiped
    /// (one of them is the password) and freed afterwards.
    /// libpq's `options` splits on spaces; a backslash escapes the next character.
    static func optionEscaped(_ text: String) -> String {
        var escaped = ""
        for character in text {
            if character == " " || character == "\\" { escaped.append("\\") }
            escaped.append(character)
        }
        return escaped
    }

    private static func withConnectionParameters<Result>(
        _ configuration: PostgresConfiguration,
        _ body: (UnsafePointer<UnsafePointer<CChar>?>, UnsafePointer<UnsafePointer<CChar>?>) -> Result
    ) -> Result {
        var pairs: [(String, String)] = [
            ("host", configuration.host),
            ("port", String(configuration.port)),
            ("user", configuration.user),
            ("dbname", configuration.database),
            ("application_name", configuration.applicationName),
            ("connect_timeout", String(max(0, configuration.connectTimeout))),
            ("client_encoding", "UTF8"),
            ("options", (["-c DateStyle=ISO -c TimeZone=UTC -c IntervalStyle=postgres"]
                         + configuration.sessionSettings.sorted { $0.key < $1.key }.map { "-c \(optionEscaped($0.key))=\(optionEscaped($0.value))" })
                .joined(separator: " ")),
        ]
        if let mode = configuration.sslMode { pairs.append(("sslmode", mode.rawValue)) }
        if let path = configuration.sslRootCertificate { pairs.append(("sslrootcert", path)) }
        if let mode = configuration.gssEncryptionMode { pairs.append(("gssencmode", mode.rawValue)) }
        if let password = configuration.password {
            pairs.append(("password", password))
        }
        let keywords = pairs.map { strdup($0.0) }
        let values = pairs.map { strdup($0.1) }
        defer {
            for pointer in keywords { free(pointer) }
            for pointer in values {
                if let pointer { memset(pointer, 0, strlen(pointer)) }
                free(pointer)
            }
        }
        let keywordPointers = keywords.map { UnsafePointer($0) } + [nil]
        let valuePointers = values.map { UnsafePointer($0) } + [nil]
        return body(keywordPointers, valuePointers)
    }

    /// The error for a failed connection attempt; finishes `handle`.
    private static func failedConnection(_ handle: OpaquePointer, _ configuration: PostgresConfiguration) -> PostgresError {
        let message = PostgresError.sanitized(
            PQerrorMessage(handle).map { String(cString: $0) } ?? "unknown error",
            hiding: configuration.password
        )
        PQfinish(handle)
        return PostgresError(.connection, message: message, endpoint: configuration.endpoint)
    }

    /// True while libpq considers the connection good (`PQstatus == CONNECTION_OK`) and the server
    /// has not announced it is ending the session. It turns false only after a call noticed.
    public var isOK: Bool {
        guard let handle else { return false }
        return PQstatus(handle) == CONNECTION_OK && !serverEndedSession.pointee
    }

    /// The server process ID serving this connection (`pg_backend_pid()`), 0 when closed.
    public var backendPID: Int32 {
        guard let handle else { return 0 }
        return PQbackendPID(handle)
    }

    /// True while a transaction block is open (including a failed one awaiting ROLLBACK).
    public var isInTransaction: Bool {
        guard let handle else { return false }
        let status = PQtransactionStatus(handle)
        return status == PQTRANS_INTRANS || status == PQTRANS_INERROR || status == PQTRANS_ACTIVE
    }

    /// Closes the connection (`PQfinish`). Idempotent; `deinit` also closes.
    @available(*, noasync)
    public func close() {
        if let handle {
            PQfinish(handle)
            self.handle = nil
        }
    }

    // MARK: statements

    /// Runs one statement with the extended protocol (`PQexecParams`), parameters in text format.
    ///
    /// Use `$1`, `$2`, … placeholders; values are never interpolated into the SQL.
    /// - Throws: ``PostgresError``: ``PostgresError/Kind/query`` with the server's SQLSTATE,
    ///   ``PostgresError/Kind/connection`` when the connection was lost, ``PostgresError/Kind/closed``
    ///   after ``close()``.
    @available(*, noasync)
    @discardableResult
    public func query(_ sql: String, _ parameters: [any PostgresEncodable] = []) throws(PostgresError) -> PostgresResult {
        let handle = try openHandle()
        return try withParameterTexts(parameters) { pointers throws(PostgresError) in
            try consume(PQexecParams(handle, sql, Int32(pointers.count), nil, pointers, nil, nil, 0), handle: handle)
        }
    }

    /// Runs one statement like ``query(_:_:)``, but prepared once on this connection (`PQprepare`
    /// on first use, `PQexecPrepared` after): the server parses it once, and once its plan cache
    /// settles on a generic plan, stops planning it. For statements a worker or relay runs for
    /// every batch, where planning cost as much as executing.
    ///
    /// Parameter types come from the SQL (write `$1::uuid[]` where the context does not say).
    /// A statement the server no longer knows (`DISCARD ALL`), or whose result columns changed
    /// under it (a migration), fails once and is prepared afresh on the next call.
    @available(*, noasync)
    @discardableResult
    public func query(prepared sql: String, _ parameters: [any PostgresEncodable] = []) throws(PostgresError) -> PostgresResult {
        let handle = try openHandle()
        let name = try preparedName(sql, handle: handle)
        return try forgettingLostStatements([sql]) { () throws(PostgresError) in
            try withParameterTexts(parameters) { pointers throws(PostgresError) in
                try consume(PQexecPrepared(handle, name, Int32(pointers.count), pointers, nil, nil, 0), handle: handle)
            }
        }
    }

    /// Runs one statement like ``query(prepared:_:)``, with `settings` in force for it alone.
    ///
    /// Outside a transaction block, `set_config(name, value, true)` and the statement are sent
    /// together in libpq's pipeline mode: they run in one implicit transaction (the settings end
    /// with it) and take one round trip, where `SET LOCAL` would take a `BEGIN` and a `COMMIT`
    /// more. Settings that act when a statement is bound, such as `plan_cache_mode`, apply to it.
    /// Inside a transaction block the statement runs without them: they would outlast it.
    /// - Parameter settings: names and values of server settings (sent as parameters).
    @available(*, noasync)
    @discardableResult
    public func query(prepared sql: String, _ parameters: [any PostgresEncodable] = [],
                      settings: KeyValuePairs<String, String>) throws(PostgresError) -> PostgresResult {
        let handle = try openHandle()
        guard !settings.isEmpty, PQtransactionStatus(handle) == PQTRANS_IDLE else {
            return try query(prepared: sql, parameters)
        }
        let name = try preparedName(sql, handle: handle)
        let setSQL = "SELECT " + settings.indices.map { index in
            let offset = 2 * settings.distance(from: settings.startIndex, to: index)
            return "set_config($\(offset + 1), $\(offset + 2), true)"
        }.joined(separator: ", ")
        let setParameters: [any PostgresEncodable] = settings.flatMap { [$0.key, $0.value] as [any PostgresEncodable] }
        let setName = try preparedName(setSQL, handle: handle)
        return try forgettingLostStatements([sql, setSQL]) { () throws(PostgresError) in
            // The texts first: nothing may throw between entering pipeline mode and leaving it.
            try withParameterTexts(setParameters) { set throws(PostgresError) in
                try withParameterTexts(parameters) { pointers throws(PostgresError) in
                    guard PQenterPipelineMode(handle) == 1 else { throw lostError(handle) }
                    let sent = PQsendQueryPrepared(handle, setName, Int32(set.count), set, nil, nil, 0) == 1
                        && PQsendQueryPrepared(handle, name, Int32(pointers.count), pointers, nil, nil, 0) == 1
                        && PQpipelineSync(handle) == 1
                    let results = sent ? pipelineResults(handle) : []
                    guard PQexitPipelineMode(handle) == 1, sent, results.count == 2 else {
                        for result in results { PQclear(result) }
                        throw lostError(handle)
                    }
                    return try consumeSettingsThenStatement(results[0], results[1], handle: handle)
                }
            }
        }
    }

    /// Consumes (and frees) a pipeline's two results. The settings' error, if any, is the one to
    /// report: the statement's is then only "aborted".
    private func consumeSettingsThenStatement(_ settings: OpaquePointer, _ statement: OpaquePointer,
                                              handle: OpaquePointer) throws(PostgresError) -> PostgresResult {
        var settingsError: PostgresError?
        do throws(PostgresError) { _ = try consume(settings, handle: handle) } catch { settingsError = error }
        let result: PostgresResult
        do throws(PostgresError) {
            result = try consume(statement, handle: handle)
        } catch {
            throw settingsError ?? error
        }
        if let settingsError { throw settingsError }
        return result
    }

    /// The results of a pipeline's statements, read up to its sync; empty when the connection
    /// broke before the sync came.
    private func pipelineResults(_ handle: OpaquePointer) -> [OpaquePointer] {
        var results: [OpaquePointer] = []
        var nulls = 0
        while true {
            guard let result = PQgetResult(handle) else {
                // One null ends each statement's results; two in a row: nothing more will come.
                nulls += 1
                if nulls > 1 {
                    for result in results { PQclear(result) }
                    return []
                }
                continue
            }
            nulls = 0
            if PQresultStatus(result) == PGRES_PIPELINE_SYNC {
                PQclear(result)
                return results
            }
            results.append(result)
        }
    }

    /// The name `sql` is prepared under on this connection, preparing it on first use.
    private func preparedName(_ sql: String, handle: OpaquePointer) throws(PostgresError) -> String {
        if let known = preparedStatements[sql] { return known }
        let name = "reparto_\(preparedStatements.count + discardedStatements)"
        _ = try consume(PQprepare(handle, name, sql, 0, nil), handle: handle)
        preparedStatements[sql] = name
        return name
    }

    /// Runs `body`, forgetting the prepared statements of `sqls` when the server no longer has
    /// one of them (they are prepared afresh on their next use).
    private func forgettingLostStatements<T>(_ sqls: [String], _ body: () throws(PostgresError) -> T) throws(PostgresError) -> T {
        do {
            return try body()
        } catch {
            // 26000: no such prepared statement; 0A000: "cached plan must not change result type".
            if error.sqlState == "26000" || error.sqlState == "0A000" {
                for sql in sqls where preparedStatements.removeValue(forKey: sql) != nil { discardedStatements += 1 }
            }
            throw error
        }
    }

    /// Calls `body` with the parameters as NUL-terminated text (`nil` for SQL NULL), freed afterwards.
    private func withParameterTexts<T>(
        _ parameters: [any PostgresEncodable],
        _ body: ([UnsafePointer<CChar>?]) throws(PostgresError) -> T
    ) throws(PostgresError) -> T {
        var texts: [UnsafeMutablePointer<CChar>?] = []
        texts.reserveCapacity(parameters.count)
        defer { for pointer in texts { free(pointer) } }
        for (index, parameter) in parameters.enumerated() {
            guard let text = parameter.postgresText else {
                texts.append(nil)
                continue
            }
            if text.utf8.contains(0) {
                throw PostgresError(
                    .query, sqlState: "22021",
                    message: "parameter $\(index + 1) contains a NUL character, which PostgreSQL text cannot store"
                )
            }
            texts.append(strdup(text))
        }
        return try body(texts.map { UnsafePointer($0) })
    }

    /// Runs SQL with the simple protocol (`PQexec`): several `;`-separated statements are allowed
    /// (migrations); no parameters. Only the last statement's rows would be returned, so this
    /// returns nothing.
    @available(*, noasync)
    public func execute(_ sql: String) throws(PostgresError) {
        let handle = try openHandle()
        _ = try consume(PQexec(handle, sql), handle: handle)
    }

    /// Runs `body` inside `BEGIN` … `COMMIT`; on a thrown error rolls back and rethrows it.
    ///
    /// Nested calls use a savepoint. If the body swallowed a statement error (the transaction is
    /// aborted), this rolls back and throws a ``PostgresError`` with SQLSTATE 25P02 instead of
    /// pretending to commit.
    /// - Parameter settings: `SET LOCAL name TO value` for the transaction, sent with its `BEGIN`
    ///   in one round trip (names and values are the caller's constants: letters, digits, `_`).
    @available(*, noasync)
    public func transaction<T>(settings: KeyValuePairs<String, String> = [:],
                               _ body: (PostgresConnection) throws -> T) throws -> T {
        let handle = try openHandle()
        let setLocal = settings.map { name, value in
            precondition(Self.isPlainWord(name) && Self.isPlainWord(value), "a transaction setting must be a plain word")
            return "; SET LOCAL \(name) TO \(value)"
        }.joined()
        if PQtransactionStatus(handle) != PQTRANS_IDLE {
            if !setLocal.isEmpty { try execute(String(setLocal.dropFirst(2))) }
            return try savepoint(body)
        }
        do {
            try execute("BEGIN" + setLocal)
        } catch {
            rollbackQuietly()
            throw error
        }
        let value: T
        do {
            value = try body(self)
        } catch {
            rollbackQuietly()
            throw error
        }
        if let current = self.handle, PQtransactionStatus(current) == PQTRANS_INERROR {
            rollbackQuietly()
            throw PostgresError(
                .query, sqlState: "25P02",
                message: "current transaction is aborted by an error the transaction body did not rethrow; rolled back"
            )
        }
        try execute("COMMIT")
        return value
    }

    private static func isPlainWord(_ text: String) -> Bool {
        !text.isEmpty && text.utf8.allSatisfy { ($0 >= 0x30 && $0 <= 0x39) || ($0 >= 0x41 && $0 <= 0x5A) || ($0 >= 0x61 && $0 <= 0x7A) || $0 == 0x5F }
    }

    private func savepoint<T>(_ body: (PostgresConnection) throws -> T) throws -> T {
        savepointDepth += 1
        defer { savepointDepth -= 1 }
        let name = "reparto_savepoint_\(savepointDepth)"
        try execute("SAVEPOINT \(name)")
        do {
            let value = try body(self)
            try execute("RELEASE SAVEPOINT \(name)")
            return value
        } catch {
            try? execute("ROLLBACK TO SAVEPOINT \(name); RELEASE SAVEPOINT \(name)")
            throw error
        }
    }

    private func rollbackQuietly() {
        guard let handle, PQstatus(handle) == CONNECTION_OK, PQtransactionStatus(handle) != PQTRANS_IDLE else { return }
        if let result = PQexec(handle, "ROLLBACK") { PQclear(result) }
    }

    // MARK: LISTEN / NOTIFY

    /// `LISTEN "channel"` — the name is quoted as an identifier, so any text is safe (PostgreSQL
    /// truncates names longer than 63 bytes).
    @available(*, noasync)
    public func listen(_ channel: String) throws(PostgresError) {
        try execute("LISTEN " + Self.quoteIdentifier(channel))
    }

    /// `UNLISTEN "channel"`.
    @available(*, noasync)
    public func unlisten(_ channel: String) throws(PostgresError) {
        try execute("UNLISTEN " + Self.quoteIdentifier(channel))
    }

    /// `SELECT pg_notify($1, $2)`: delivered to listeners when the current transaction commits.
    @available(*, noasync)
    public func notify(_ channel: String, payload: String) throws(PostgresError) {
        try query(prepared: "SELECT pg_notify($1, $2)", [channel, payload])
    }

    /// Waits up to `timeout` seconds for notifications on the channels this connection listens to.
    ///
    /// Returns what has arrived (possibly several), or `[]` on timeout. Uses `poll()` on the
    /// connection's socket, then `PQconsumeInput` and `PQnotifies`.
    /// - Throws: ``PostgresError`` with ``PostgresError/isConnectionLost`` when the server went away.
    @available(*, noasync)
    public func waitForNotifications(timeout: Double) throws(PostgresError) -> [PostgresNotification] {
        let handle = try openHandle()
        var notifications = drainNotifications(handle)
        if !notifications.isEmpty { return notifications }
        let clock = ContinuousClock()
        let deadline = clock.now.advanced(by: .nanoseconds(Int64(max(0, timeout) * 1_000_000_000)))
        while true {
            let socket = PQsocket(handle)
            guard socket >= 0 else { throw lostError(handle) }
            var descriptor = pollfd(fd: socket, events: Int16(POLLIN), revents: 0)
            let ready = poll(&descriptor, 1, clock.now.duration(to: deadline).pollTimeoutMilliseconds)
            if ready < 0 {
                if errno == EINTR { continue }
                throw PostgresError(.connection, message: "poll() failed on the connection's socket (errno \(errno))")
            }
            if ready > 0 {
                if PQconsumeInput(handle) == 0 || !isOK {
                    throw lostError(handle)
                }
                notifications = drainNotifications(handle)
                if !notifications.isEmpty { return notifications }
            }
            if clock.now >= deadline { return [] }
        }
    }

    /// The connection's socket, for a `poll()` that waits on it together with others; -1 when closed.
    public var socketDescriptor: Int32 {
        guard let handle = try? openHandle() else { return -1 }
        return PQsocket(handle)
    }

    private func drainNotifications(_ handle: OpaquePointer) -> [PostgresNotification] {
        var notifications: [PostgresNotification] = []
        while let notify = PQnotifies(handle) {
            notifications.append(PostgresNotification(
                channel: String(cString: notify.pointee.relname),
                payload: notify.pointee.extra.map { String(cString: $0) } ?? "",
                pid: notify.pointee.be_pid
            ))
            PQfreemem(notify)
        }
        return notifications
    }

    // MARK: pool support

    /// Cheap liveness check without a round trip: reads whatever the server sent while the
    /// connection was idle (e.g. the FATAL message of `pg_terminate_backend` or a shutdown) and
    /// reports whether the connection is still good.
    @available(*, noasync)
    func checkAlive() -> Bool {
        guard let handle, isOK else { return false }
        let socket = PQsocket(handle)
        guard socket >= 0 else { return false }
        // A killed backend leaves an ErrorResponse followed by end-of-file: the first read consumes
        // the message, a later one sees EOF (PQconsumeInput returns 0). Read while data is waiting.
        for _ in 0..<4 {
            var descriptor = pollfd(fd: socket, events: Int16(POLLIN), revents: 0)
            guard poll(&descriptor, 1, 0) > 0 else { break }
            if PQconsumeInput(handle) == 0 { return false }
            // PQconsumeInput only reads; PQisBusy parses, handing an idle-time FATAL ErrorResponse
            // to the notice receiver (notifications stay queued for PQnotifies).
            _ = PQisBusy(handle)
            if !isOK { return false }
        }
        return isOK
    }

    /// Rolls back a transaction a caller left open, so the next user gets a clean session.
    @available(*, noasync)
    func resetTransactionState() {
        rollbackQuietly()
    }

    // MARK: helpers

    /// `"name"` with embedded quotes doubled.
    static func quoteIdentifier(_ name: String) -> String {
        "\"" + name.replacingOccurrences(of: "\"", with: "\"\"") + "\""
    }

    private func openHandle() throws(PostgresError) -> OpaquePointer {
        guard let handle else {
            throw PostgresError(.closed, message: "the connection was closed")
        }
        return handle
    }

    private func consume(_ result: OpaquePointer?, handle: OpaquePointer) throws(PostgresError) -> PostgresResult {
        guard let result else { throw lostError(handle) }
        defer { PQclear(result) }
        let status = PQresultStatus(result)
        switch status {
        case PGRES_COMMAND_OK, PGRES_TUPLES_OK:
            return PostgresResult(copying: result)
        case PGRES_EMPTY_QUERY:
            return PostgresResult()
        case PGRES_COPY_IN:
            _ = PQputCopyEnd(handle, "COPY FROM STDIN is not supported")
            drainResults(handle)
            throw PostgresError(.protocolViolation, message: "COPY FROM STDIN is not supported by query/execute")
        case PGRES_COPY_OUT:
            var buffer: UnsafeMutablePointer<CChar>?
            while PQgetCopyData(handle, &buffer, 0) > 0 {
                PQfreemem(buffer)
                buffer = nil
            }
            drainResults(handle)
            throw PostgresError(.protocolViolation, message: "COPY TO STDOUT is not supported by query/execute")
        default:
            throw error(from: result, handle: handle)
        }
    }

    private func drainResults(_ handle: OpaquePointer) {
        while let result = PQgetResult(handle) { PQclear(result) }
    }

    private func error(from result: OpaquePointer, handle: OpaquePointer) -> PostgresError {
        func field(_ code: Character) -> String? {
            PQresultErrorField(result, Int32(code.asciiValue!)).map { String(cString: $0) }
        }
        let lost = !isOK
        let sqlState = field("C")
        let message = field("M")
            ?? PQresultErrorMessage(result).map { String(cString: $0) }
            ?? PQerrorMessage(handle).map { String(cString: $0) }
            ?? "unknown error"
        return PostgresError(
            lost ? .connection : .query,
            sqlState: sqlState,
            message: PostgresError.sanitized(message, hiding: configuration.password),
            detail: field("D"),
            hint: field("H")
        )
    }

    private func lostError(_ handle: OpaquePointer) -> PostgresError {
        let message = PQerrorMessage(handle).map { String(cString: $0) } ?? ""
        let sanitized = PostgresError.sanitized(message, hiding: configuration.password)
        return PostgresError(.connection, message: sanitized.isEmpty ? "the server closed the connection" : sanitized)
    }
}

/// A connection must stay on one thread at a time; it is deliberately not `Sendable`.
@available(*, unavailable)
extension PostgresConnection: Sendable {}
