import Foundation
import Hummingbird
import RepartoRuntime
import Logging
import Metrics
import Postgres

/// The dashboard's routes: the page at `/`, the JSON API under `/api`, and `/healthz`, `/readyz`
/// (PostgreSQL reachable), `/metrics`.
///
/// | path | body |
/// |---|---|
/// | `/api/overview` | the whole ``DashboardSnapshot`` (what the page polls) |
/// | `/api/queues` | `generated_at`, `queues`, `totals` |
/// | `/api/productions` | `generated_at`, `productions` |
/// | `/api/workers` | `generated_at`, `workers`, `worker_counts` |
/// | `/api/failures` | `generated_at`, `failures` |
/// | `/api/throughput` | `generated_at`, `throughput` |
public enum DashboardRoutes {
    /// Adds the dashboard's routes to `router`, reading through `postgres`; `views` are the
    /// production types' own views, shown as tables.
    public static func add<Context: RequestContext>(to router: Router<Context>, postgres: PostgresClient, views: [OpsView] = [],
                                                    logger: Logger) {
        let source = SnapshotSource(postgres: postgres, views: views, logger: logger)
        OperationsRoutes.add(to: router) { await source.readiness() }
        router.get("/") { _, _ in
            HTTPReply.text(DashboardPage.html, contentType: "text/html; charset=utf-8")
        }
        let api = OperationsEndpoints.apiPrefix
        router.get(RouterPath("\(api)/overview")) { _, _ in
            await source.reply { $0 }
        }
        router.get(RouterPath("\(api)/queues")) { _, _ in
            await source.reply { QueuesBody(generatedAt: $0.generatedAt, queues: $0.queues, totals: $0.totals) }
        }
        router.get(RouterPath("\(api)/productions")) { _, _ in
            await source.reply { ProductionsBody(generatedAt: $0.generatedAt, productions: $0.productions) }
        }
        router.get(RouterPath("\(api)/workers")) { _, _ in
            await source.reply { WorkersBody(generatedAt: $0.generatedAt, workers: $0.workers, workerCounts: $0.workerCounts) }
        }
        router.get(RouterPath("\(api)/failures")) { _, _ in
            await source.reply { FailuresBody(generatedAt: $0.generatedAt, failures: $0.failures) }
        }
        router.get(RouterPath("\(api)/throughput")) { _, _ in
            await source.reply { ThroughputBody(generatedAt: $0.generatedAt, throughput: $0.throughput) }
        }
    }

    struct QueuesBody: Encodable {
        var generatedAt: Date
        var queues: [DashboardSnapshot.QueueRow]
        var totals: DashboardSnapshot.QueueTotals
    }

    struct ProductionsBody: Encodable {
        var generatedAt: Date
        var productions: [ProductionProgress]
    }

    struct WorkersBody: Encodable {
        var generatedAt: Date
        var workers: [DashboardSnapshot.WorkerRow]
        var workerCounts: DashboardSnapshot.WorkerCounts
    }

    struct FailuresBody: Encodable {
        var generatedAt: Date
        var failures: [DashboardSnapshot.FailureRow]
    }

    struct ThroughputBody: Encodable {
        var generatedAt: Date
        var throughput: [DashboardSnapshot.ThroughputPoint]
    }
}

/// Reads snapshots for the routes; database errors become a 503 with a generic body (the error
/// itself is logged, not sent).
struct SnapshotSource: Sendable {
    let postgres: PostgresClient
    let views: [OpsView]
    let logger: Logger

    func reply<Body: Encodable>(_ select: @Sendable (DashboardSnapshot) -> Body) async -> Response {
        do {
            let snapshot = try await postgres.withConnection { [views] in try DashboardQueries.snapshot(views: views, on: $0) }
            Counter(label: "reparto_dashboard_queries_total", dimensions: [("outcome", "ok")]).increment()
            return HTTPReply.json(select(snapshot))
        } catch {
            Counter(label: "reparto_dashboard_queries_total", dimensions: [("outcome", "error")]).increment()
            logger.warning("dashboard query failed", metadata: ["error": "\(error)"])
            return HTTPReply.json(["error": "the database is not available"], status: .serviceUnavailable)
        }
    }

    func readiness() async -> ReadinessStatus {
        do {
            try await postgres.withConnection { try DashboardQueries.ping(on: $0) }
            return ReadinessStatus()
        } catch {
            logger.warning("dashboard readiness: PostgreSQL unreachable", metadata: ["error": "\(error)"])
            return ReadinessStatus(problems: ["PostgreSQL: unreachable"])
        }
    }
}
