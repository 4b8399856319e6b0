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
///
/// Each endpoint reads only its own part. Lists (`productions`, `workers`, `failures`, and the
/// overview's) take `?limit=` (1–500, default 50) and `?offset=` (0–100000); another value is a
/// 400 with one line saying so.
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
        router.get(RouterPath("\(api)/overview")) { request, _ in
            await source.reply(Set(DashboardQueries.Part.allCases), request) { $0 }
        }
        router.get(RouterPath("\(api)/queues")) { request, _ in
            await source.reply([.queues], request) { QueuesBody(generatedAt: $0.generatedAt, queues: $0.queues, totals: $0.totals) }
        }
        router.get(RouterPath("\(api)/productions")) { request, _ in
            await source.reply([.productions], request) { ProductionsBody(generatedAt: $0.generatedAt, productions: $0.productions) }
        }
        router.get(RouterPath("\(api)/workers")) { request, _ in
            await source.reply([.workers], request) {
                WorkersBody(generatedAt: $0.generatedAt, workers: $0.workers, workerCounts: $0.workerCounts)
            }
        }
        router.get(RouterPath("\(api)/failures")) { request, _ in
            await source.reply([.failures], request) { FailuresBody(generatedAt: $0.generatedAt, failures: $0.failures) }
        }
        router.get(RouterPath("\(api)/throughput")) { request, _ in
            await source.reply([.throughput], request) { ThroughputBody(generatedAt: $0.generatedAt, throughput: $0.throughput) }
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

    func reply<Body: Encodable>(_ parts: Set<DashboardQueries.Part>, _ request: Request,
                                _ select: @Sendable (DashboardSnapshot) -> Body) async -> Response {
        let page: DashboardQueries.Page
        switch Self.page(request.uri.queryParameters) {
        case .success(let value): page = value
        case .failure(let problem): return HTTPReply.json(["error": problem.message], status: .badRequest)
        }
        do {
            let snapshot = try await postgres.withConnection { [views] in
                try DashboardQueries.snapshot(parts: parts, page: page, views: views, on: $0)
            }
            Counter(label: "reparto_dashboard_queries_total", dimensions: [("outcome", "ok")]).increment()
            return HTTPReply.json(select(snapshot))
        } catch {
            Counter(label: "reparto_dashboard_queries_total", dimensions: [("outcome", "error")]).increment()
            logger.warning("dashboard query failed", metadata: ["error": "\(error)"])
            return HTTPReply.json(["error": "the database is not available"], status: .serviceUnavailable)
        }
    }

    /// A `limit` or `offset` that is not a whole number in range.
    struct PageProblem: Error {
        var message: String
    }

    /// `?limit=&offset=`, checked: whole numbers in range, else one line naming the parameter.
    static func page(_ query: Parameters) -> Result<DashboardQueries.Page, PageProblem> {
        func read(_ name: String, _ range: ClosedRange<Int>, _ fallback: Int) -> Result<Int, PageProblem> {
            guard let text = query[name[...]] else { return .success(fallback) }
            guard text.count <= 9, let value = Int(text), range.contains(value) else {
                return .failure(PageProblem(message: "\(name) must be a whole number from \(range.lowerBound) to \(range.upperBound)"))
            }
            return .success(value)
        }
        return read("limit", 1...DashboardQueries.maximumLimit, DashboardQueries.defaultLimit).flatMap { limit in
            read("offset", 0...DashboardQueries.maximumOffset, 0).map { DashboardQueries.Page(limit: limit, offset: $0) }
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
