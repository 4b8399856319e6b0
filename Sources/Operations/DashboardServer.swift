import Hummingbird
import Logging
import NIOCore
import Postgres
import ServiceLifecycle

/// The `reparto dashboard` web server, buildable without the CLI (tests start it on port 0).
public enum DashboardServer {
    /// An application serving the dashboard page, its JSON API and the health endpoints, reading
    /// the `ops.*` views through `postgres` (ideally connected as the `reparto_dashboard` role).
    ///
    /// - Parameters:
    ///   - port: the port to bind; 0 picks a free one, reported to `onListening`.
    ///   - onListening: called with the bound port once the server accepts connections.
    public static func buildApplication(
        host: String, port: Int, postgres: PostgresClient, logger: Logger,
        onListening: @escaping @Sendable (Int) async -> Void = { _ in }
    ) -> some ApplicationProtocol {
        let router = Router()
        DashboardRoutes.add(to: router, postgres: postgres, logger: logger)
        return Application(
            router: router,
            configuration: ApplicationConfiguration(address: .hostname(host, port: port)),
            onServerRunning: { channel in await onListening(channel.localAddress?.port ?? port) },
            logger: logger)
    }

    /// Serves the dashboard (``buildApplication(host:port:postgres:logger:onListening:)``) on a
    /// pool of `database` until SIGTERM or SIGINT, logging its URL once it listens: what
    /// `reparto dashboard` runs. The connect timeout is at most 5 s, so `/readyz` answers within a
    /// probe's timeout even when the database is unreachable.
    public static func serve(database: PostgresConfiguration, host: String, port: Int, logger: Logger) async throws {
        var configuration = database
        configuration.connectTimeout = min(configuration.connectTimeout, 5)
        let postgres = PostgresClient(configuration: configuration, maxConnections: 2, logger: logger)
        let name = configuration.database, user = configuration.user
        let server = buildApplication(host: host, port: port, postgres: postgres, logger: logger, onListening: { bound in
            logger.info("dashboard listening", metadata: [
                "url": "http://\(host):\(bound)/", "host": "\(host)", "port": "\(bound)", "database": "\(name)", "user": "\(user)",
            ])
        })
        let group = ServiceGroup(configuration: .init(services: [.init(service: server)], gracefulShutdownSignals: [.sigterm, .sigint],
                                                      logger: logger))
        do {
            try await group.run()
        } catch {
            await postgres.shutdown()
            throw error
        }
        await postgres.shutdown()
    }
}
