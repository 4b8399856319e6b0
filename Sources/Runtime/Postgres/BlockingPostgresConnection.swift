import Logging
import Synchronization

/// One PostgreSQL connection for blocking use: opened on first use, replaced when it broke.
///
/// Before each use a connection that broke while idle is closed and a fresh one opened; after a
/// body whose error says the connection was lost, or that left it unusable, it is closed so the
/// next use opens another. A transaction left open is rolled back. A failed operation is never
/// retried. Calls are serialized by a lock and block their thread: make them from a thread of
/// your own (a pool slot's queue, a worker's heartbeat thread), never from Swift's cooperative pool.
public final class BlockingPostgresConnection: Sendable {
    /// The configuration the connection is opened with.
    public let configuration: PostgresConfiguration
    private let logger: Logger
    private let connection = Mutex<PostgresConnection?>(nil)

    /// A connection to `configuration`'s server, not opened yet.
    public init(configuration: PostgresConfiguration, logger: Logger = Logger(label: "reparto.postgres")) {
        self.configuration = configuration
        self.logger = logger
    }

    /// Runs `body` with a healthy connection, opening one if needed.
    /// - Throws: the connect error or `body`'s error.
    @available(*, noasync)
    public func run<T>(_ body: (PostgresConnection) throws -> T) throws -> T {
        try connection.withLock { connection in
            if let existing = connection, !existing.checkAlive() {
                logger.info("replacing a broken PostgreSQL connection", metadata: ["server": "\(configuration.endpoint)"])
                existing.close()
                connection = nil
            }
            let current: PostgresConnection
            if let connection {
                current = connection
            } else {
                current = try PostgresConnection.connect(configuration)
                logger.debug("opened a PostgreSQL connection", metadata: [
                    "server": "\(configuration.endpoint)", "pid": "\(current.backendPID)",
                ])
                connection = current
            }
            do {
                let value = try body(current)
                Self.afterUse(current, &connection)
                return value
            } catch {
                if let error = error as? PostgresError, error.isConnectionLost {
                    current.close()
                    connection = nil
                } else {
                    Self.afterUse(current, &connection)
                }
                throw error
            }
        }
    }

    /// Closes the connection, if open; the next ``run(_:)`` opens another.
    @available(*, noasync)
    public func close() {
        connection.withLock { connection in
            connection?.close()
            connection = nil
        }
    }

    private static func afterUse(_ current: PostgresConnection, _ connection: inout PostgresConnection?) {
        if !current.isOK {
            current.close()
            connection = nil
        } else if current.isInTransaction {
            current.resetTransactionState()
        }
    }
}
