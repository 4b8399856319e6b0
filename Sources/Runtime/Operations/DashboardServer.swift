import Hummingbird
import Logging
import NIOCore
import Postgres
import RepartoRuntime
import RepartoConfiguration
import ServiceLifecycle

/// The `reparto dashboard` web server, buildable without the CLI (tests start it on port 0).
public enum DashboardServer {
    /// An application serving the dashboard page, its JSON API and the health endpoints, reading
    /// the `ops.*` views through `postgres` (ideally connected as the `reparto_dashboard` role).
    ///
    /// - Parameters:
    ///   - port: the port to bind; 0 picks a free one, reported to `onListening`.
    ///   - token: when set, every request without `Authorization: Bearer <token>` gets 401
    ///     (see ``DashboardAccess/requiredToken(host:token:)`` for when it must be).
    ///   - onListening: called with the bound port once the server accepts connections.
    public static func buildApplication(
        host: String, port: Int, postgres: PostgresClient, views: [OpsView] = [], logger: Logger, token: Secret? = nil,
        onListening: @escaping @Sendable (Int) async -> Void = { _ in }
    ) -> some ApplicationProtocol {
        let router = Router()
        if let token { router.add(middleware: BearerTokenMiddleware(token: token)) }
        DashboardRoutes.add(to: router, postgres: postgres, views: views, logger: logger)
        return Application(
            router: router,
            configuration: ApplicationConfiguration(address: .hostname(host, port: port)),
            onServerRunning: { channel in await onListening(channel.localAddress?.port ?? port) },
            logger: logger)
    }

    /// Serves the dashboard (``buildApplication(host:port:postgres:views:logger:token:onListening:)``) on a
    /// pool of `database` until SIGTERM or SIGINT, logging its URL once it listens: what
    /// `reparto dashboard` runs. The connect timeout is at most 5 s, so `/readyz` answers within a
    /// probe's timeout even when the database is unreachable.
    /// - Throws: ``DashboardAccessError/tokenRequired(host:)`` before binding when `host` is not
    ///   loopback and there is no `token`.
    public static func serve(database: PostgresConfiguration, host: String, port: Int, token: Secret?, views: [OpsView] = [],
                             logger: Logger) async throws {
        let token = try DashboardAccess.requiredToken(host: host, token: token)
        var configuration = database
        configuration.connectTimeout = min(configuration.connectTimeout, 5)
        let postgres = PostgresClient(configuration: configuration, maxConnections: 2, logger: logger)
        // Where the reads go (a replica, when REPARTO_DASHBOARD_DATABASE_URL names one); never the URL or password.
        let name = configuration.database, user = configuration.user
        let shownHost = configuration.host.contains(":") ? "[\(configuration.host)]" : configuration.host
        let databaseServer = "\(shownHost):\(configuration.port)"
        let server = buildApplication(host: host, port: port, postgres: postgres, views: views, logger: logger, token: token, onListening: { bound in
            logger.info("dashboard listening", metadata: [
                "url": "http://\(host):\(bound)/", "host": "\(host)", "port": "\(bound)", "database": "\(name)", "user": "\(user)",
                "database_server": "\(databaseServer)",
                "auth": "\(token == nil ? "none (loopback)" : "bearer token")",
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
