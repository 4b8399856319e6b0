import Foundation

/// An error from the PostgreSQL client or server.
///
/// Modelled on postgres-nio's `PSQLError`: a struct with a ``kind`` and the server's diagnostic
/// fields. ``description`` is built only from those fields and the host/port, so a password or a
/// connection string can never leak through logging an error.
public struct PostgresError: Error, Sendable, CustomStringConvertible {
    /// What went wrong, broadly.
    public enum Kind: Sendable, Equatable {
        /// The configuration or URL is invalid.
        case configuration
        /// Connecting failed, or the connection was lost.
        case connection
        /// The server rejected a statement (see ``PostgresError/sqlState``).
        case query
        /// The connection or client was closed before or during the call.
        case closed
        /// An operation did not finish in time.
        case timeout
        /// The server answered something this client did not expect (e.g. COPY from `query`).
        case protocolViolation
    }

    /// What went wrong, broadly.
    public var kind: Kind
    /// The five-character SQLSTATE (`PG_DIAG_SQLSTATE`), when the server sent one.
    public var sqlState: String?
    /// The server's primary message (or libpq's), never containing a connection string or password.
    public var message: String
    /// The server's DETAIL field.
    public var detail: String?
    /// The server's HINT field.
    public var hint: String?
    /// `host:port` of the server, for connection errors.
    var endpoint: String?

    /// Creates an error. Callers outside this module mostly use it to build test doubles.
    public init(_ kind: Kind, sqlState: String? = nil, message: String, detail: String? = nil, hint: String? = nil) {
        self.kind = kind
        self.sqlState = sqlState
        self.message = message
        self.detail = detail
        self.hint = hint
    }

    init(_ kind: Kind, sqlState: String? = nil, message: String, detail: String? = nil, hint: String? = nil, endpoint: String?) {
        self.init(kind, sqlState: sqlState, message: message, detail: detail, hint: hint)
        self.endpoint = endpoint
    }

    /// True when the connection is unusable: a ``Kind/connection`` or ``Kind/closed`` error, an
    /// SQLSTATE of class 08 (connection exception), or 57P01…57P03 (administrator shutdown,
    /// crash shutdown, cannot connect now). A pool replaces such a connection.
    public var isConnectionLost: Bool {
        if kind == .connection || kind == .closed { return true }
        guard let sqlState else { return false }
        return sqlState.hasPrefix("08") || sqlState == "57P01" || sqlState == "57P02" || sqlState == "57P03"
    }

    /// True for SQLSTATE 23505 (`unique_violation`).
    public var isUniqueViolation: Bool { sqlState == "23505" }

    /// True for SQLSTATE 40001 (`serialization_failure`) and 40P01 (`deadlock_detected`): the
    /// transaction may succeed if retried.
    public var isRetryableTransactionFailure: Bool { sqlState == "40001" || sqlState == "40P01" }

    /// A readable summary, e.g. `PostgreSQL error 23505: duplicate key value violates unique constraint "x"`.
    public var description: String {
        var text: String
        switch kind {
        case .configuration:
            text = "invalid PostgreSQL configuration: \(message)"
        case .connection:
            if let endpoint {
                text = "cannot connect to PostgreSQL at \(endpoint): \(message)"
            } else {
                text = "PostgreSQL connection lost: \(message)"
            }
        case .query:
            text = "PostgreSQL error \(sqlState ?? "?????"): \(message)"
        case .closed:
            text = "PostgreSQL connection closed: \(message)"
        case .timeout:
            text = "PostgreSQL timeout: \(message)"
        case .protocolViolation:
            text = "PostgreSQL protocol violation: \(message)"
        }
        if kind != .query, let sqlState { text += " (SQLSTATE \(sqlState))" }
        if let detail { text += " DETAIL: \(detail)" }
        if let hint { text += " HINT: \(hint)" }
        return text
    }
}

extension PostgresError {
    /// Removes `secret` from a libpq message (libpq does not echo passwords, but be certain) and
    /// trims the trailing newline libpq adds.
    static func sanitized(_ message: String, hiding secret: String?) -> String {
        var text = message
        if let secret, !secret.isEmpty {
            text = text.replacingOccurrences(of: secret, with: "********")
        }
        while let last = text.last, last.isNewline || last == " " { text.removeLast() }
        return text.replacingOccurrences(of: "\n", with: " ")
    }
}
