/// Where and how to connect to a PostgreSQL server.
///
/// The ``description`` never contains the password, so a configuration can be logged safely.
public struct PostgresConfiguration: Sendable, Equatable, CustomStringConvertible {
    /// Host name, IP address, or the directory of a Unix-domain socket (a path starting with `/`).
    public var host: String
    /// TCP port (or the socket file suffix for Unix-domain sockets).
    public var port: Int
    /// The role to connect as.
    public var user: String
    /// The password, if the server asks for one. Never logged, never part of ``description``.
    public var password: String?
    /// The database to connect to.
    public var database: String
    /// Shown in `pg_stat_activity.application_name`.
    public var applicationName: String
    /// Seconds to wait for a connection to be established (libpq's minimum effective value is 2).
    public var connectTimeout: Int
    /// libpq's `sslmode`; nil leaves libpq's default (`prefer`, or `PGSSLMODE`).
    public var sslMode: SSLMode?
    /// libpq's `sslrootcert`: the CA certificates `verify-ca` and `verify-full` check the server against.
    public var sslRootCertificate: String?
    /// libpq's `gssencmode`; nil leaves libpq's default (`prefer`, or `PGGSSENCMODE`).
    public var gssEncryptionMode: GSSEncryptionMode?
    /// Session settings every connection starts with (`-c name=value` in libpq's `options`), e.g.
    /// `reparto.namespace`. Names and values are escaped; they are not secrets.
    public var sessionSettings: [String: String] = [:]

    /// Whether and how the connection uses TLS (libpq's `sslmode`).
    public enum SSLMode: String, Sendable, CaseIterable {
        case disable, allow, prefer, require
        case verifyCA = "verify-ca"
        case verifyFull = "verify-full"
    }

    /// Whether the connection uses GSSAPI encryption (libpq's `gssencmode`).
    public enum GSSEncryptionMode: String, Sendable, CaseIterable {
        case disable, prefer, require
    }

    /// Creates a configuration from its parts.
    public init(
        host: String,
        port: Int = 5432,
        user: String,
        password: String? = nil,
        database: String,
        applicationName: String = "reparto",
        connectTimeout: Int = 10
    ) {
        (self.host, self.port, self.user, self.password, self.database, self.applicationName, self.connectTimeout)
            = (host, port, user, password, database, applicationName, connectTimeout)
    }

    /// Parses a URL of the form
    /// `postgres://user:password@host:port/database?application_name=name&connect_timeout=5`
    /// (`postgresql://` is accepted too). User, password and database are percent-decoded.
    /// `sslmode`, `sslrootcert` and `gssencmode` are passed to libpq (a local server on loopback
    /// without TLS: `sslmode=disable&gssencmode=disable` saves each connection a round trip and the
    /// TLS and Kerberos libraries' start-up); other libpq parameters are ignored.
    /// An IPv6 host is written in brackets: `postgres://u@[::1]:5432/db`.
    ///
    /// - Throws: ``PostgresError`` of kind ``PostgresError/Kind/configuration`` for anything that is
    ///   not such a URL. The error message never repeats the URL (it may contain a password).
    public init(url: String) throws(PostgresError) {
        let rest: Substring
        if url.hasPrefix("postgres://") {
            rest = url.dropFirst("postgres://".count)
        } else if url.hasPrefix("postgresql://") {
            rest = url.dropFirst("postgresql://".count)
        } else {
            throw PostgresError(.configuration, message: "the database URL must start with postgres:// or postgresql://")
        }

        // Split off the query, then the path.
        var beforeQuery = rest
        var query: Substring = ""
        if let q = rest.firstIndex(of: "?") {
            beforeQuery = rest[..<q]
            query = rest[rest.index(after: q)...]
        }
        var authority = beforeQuery
        var path: Substring = ""
        if let slash = beforeQuery.firstIndex(of: "/") {
            authority = beforeQuery[..<slash]
            path = beforeQuery[beforeQuery.index(after: slash)...]
        }

        // userinfo@hostport — the last "@" separates them (a raw "@" in a password is tolerated).
        var userInfo: Substring = ""
        var hostPort = authority
        if let at = authority.lastIndex(of: "@") {
            userInfo = authority[..<at]
            hostPort = authority[authority.index(after: at)...]
        }

        var user: String?
        var password: String?
        if !userInfo.isEmpty {
            if let colon = userInfo.firstIndex(of: ":") {
                user = try Self.percentDecoded(userInfo[..<colon], part: "user name")
                password = try Self.percentDecoded(userInfo[userInfo.index(after: colon)...], part: "password")
            } else {
                user = try Self.percentDecoded(userInfo, part: "user name")
            }
        }

        var host = "localhost"
        var port = 5432
        var portText: Substring?
        if hostPort.hasPrefix("[") {
            guard let close = hostPort.firstIndex(of: "]") else {
                throw PostgresError(.configuration, message: "unterminated IPv6 address in the database URL")
            }
            host = String(hostPort[hostPort.index(after: hostPort.startIndex)..<close])
            let after = hostPort[hostPort.index(after: close)...]
            if after.hasPrefix(":") {
                portText = after.dropFirst()
            } else if !after.isEmpty {
                throw PostgresError(.configuration, message: "unexpected characters after the IPv6 address in the database URL")
            }
        } else if let colon = hostPort.lastIndex(of: ":") {
            host = try Self.percentDecoded(hostPort[..<colon], part: "host")
            portText = hostPort[hostPort.index(after: colon)...]
        } else if !hostPort.isEmpty {
            host = try Self.percentDecoded(hostPort, part: "host")
        }
        if host.isEmpty { host = "localhost" }
        if let portText {
            guard let value = Int(portText), (1...65535).contains(value) else {
                throw PostgresError(.configuration, message: "the port in the database URL is not a number between 1 and 65535")
            }
            port = value
        }

        guard let user, !user.isEmpty else {
            throw PostgresError(.configuration, message: "the database URL has no user name")
        }
        var database = try Self.percentDecoded(path, part: "database name")
        if database.isEmpty { database = user }

        var applicationName = "reparto"
        var connectTimeout = 10
        var sslMode: SSLMode?
        var sslRootCertificate: String?
        var gssEncryptionMode: GSSEncryptionMode?
        for pair in query.split(separator: "&") where !pair.isEmpty {
            let key: Substring
            let value: Substring
            if let eq = pair.firstIndex(of: "=") {
                key = pair[..<eq]
                value = pair[pair.index(after: eq)...]
            } else {
                key = pair
                value = ""
            }
            switch key {
            case "application_name":
                applicationName = try Self.percentDecoded(value, part: "application_name", plusIsSpace: true)
            case "connect_timeout":
                guard let seconds = Int(value), seconds >= 0 else {
                    throw PostgresError(.configuration, message: "connect_timeout in the database URL is not a whole number of seconds")
                }
                connectTimeout = seconds
            case "sslmode":
                guard let mode = SSLMode(rawValue: String(value)) else {
                    throw PostgresError(.configuration, message: "sslmode in the database URL must be one of \(SSLMode.allCases.map(\.rawValue).joined(separator: ", "))")
                }
                sslMode = mode
            case "sslrootcert":
                sslRootCertificate = try Self.percentDecoded(value, part: "sslrootcert")
            case "gssencmode":
                guard let mode = GSSEncryptionMode(rawValue: String(value)) else {
                    throw PostgresError(.configuration, message: "gssencmode in the database URL must be one of \(GSSEncryptionMode.allCases.map(\.rawValue).joined(separator: ", "))")
                }
                gssEncryptionMode = mode
            default:
                // Other libpq parameters are not supported by this client; ignore them.
                continue
            }
        }

        self.init(
            host: host, port: port, user: user, password: password, database: database,
            applicationName: applicationName, connectTimeout: connectTimeout
        )
        (self.sslMode, self.sslRootCertificate, self.gssEncryptionMode) = (sslMode, sslRootCertificate, gssEncryptionMode)
    }

    /// `postgres://user@host:port/database?application_name=…` — never shows the password.
    public var description: String {
        let shownHost = host.contains(":") ? "[\(host)]" : host
        var text = "postgres://\(user)@\(shownHost):\(port)/\(database)?application_name=\(applicationName)"
        if let sslMode { text += "&sslmode=\(sslMode.rawValue)" }
        if let gssEncryptionMode { text += "&gssencmode=\(gssEncryptionMode.rawValue)" }
        return text
    }

    /// `host:port`, as used in connection error messages.
    var endpoint: String {
        host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)"
    }

    static func percentDecoded(_ text: Substring, part: String, plusIsSpace: Bool = false) throws(PostgresError) -> String {
        guard text.contains("%") || (plusIsSpace && text.contains("+")) else { return String(text) }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(text.utf8.count)
        var iterator = text.utf8.makeIterator()
        while let byte = iterator.next() {
            if byte == UInt8(ascii: "%") {
                guard let high = iterator.next().flatMap(Self.hexValue), let low = iterator.next().flatMap(Self.hexValue) else {
                    throw PostgresError(.configuration, message: "invalid percent-encoding in the \(part) of the database URL")
                }
                bytes.append(high << 4 | low)
            } else if plusIsSpace && byte == UInt8(ascii: "+") {
                bytes.append(UInt8(ascii: " "))
            } else {
                bytes.append(byte)
            }
        }
        guard let decoded = String(validating: bytes, as: UTF8.self) else {
            throw PostgresError(.configuration, message: "the \(part) of the database URL is not valid UTF-8 after percent-decoding")
        }
        return decoded
    }

    private static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
        default: nil
        }
    }
}
