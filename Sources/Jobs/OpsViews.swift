import Postgres

/// The operations views (`ops.*`), read as generic tables for `reparto status` and dashboards.
public enum OpsView: String, CaseIterable, Sendable {
    case queueOverview = "queue_overview"
    case productionProgress = "production_progress"
    case workers
    case recentFailures = "recent_failures"
    case throughput
    case limits
    case pauses
    case schedules
    case bookImports = "book_imports"

    /// Every view's rows, in ``allCases`` order, each capped at `limit`: what `reparto status` shows.
    public static func snapshot(limit: Int = 50, on client: PostgresClient) async throws -> [(OpsView, PostgresResult)] {
        var views: [(OpsView, PostgresResult)] = []
        for view in allCases { views.append((view, try await view.rows(limit: limit, on: client))) }
        return views
    }

    /// The view's rows (most recent or most relevant first), capped at `limit`.
    public func rows(limit: Int = 50, on client: PostgresClient) async throws -> PostgresResult {
        let order: String
        switch self {
        case .queueOverview: order = "ORDER BY kind"
        case .productionProgress: order = "ORDER BY started_at DESC"
        case .workers: order = "ORDER BY status, heartbeat_at DESC"
        case .recentFailures: order = "ORDER BY finished_at DESC"
        case .throughput: order = "ORDER BY minute DESC, kind"
        case .limits: order = "ORDER BY name"
        case .pauses: order = "ORDER BY scope, name"
        case .schedules: order = "ORDER BY name"
        case .bookImports: order = "ORDER BY started_at DESC"
        }
        // The view name comes from this enum, never from input.
        return try await client.query("SELECT * FROM ops.\(rawValue) \(order) LIMIT $1", [limit])
    }
}
