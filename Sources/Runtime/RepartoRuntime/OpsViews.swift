import Postgres

/// An operations view (`ops.*`), read as a generic table by `reparto status` and the dashboard:
/// the runtime's own (``runtime``) and the ones each production type declares for its rows.
public struct OpsView: Sendable, Hashable {
    /// The view's name in the `ops` schema (`queue_overview`); also its key in `reparto status --json`.
    public let name: String
    /// The columns it is shown ordered by, most recent or most relevant first (`started_at DESC`).
    public let order: String
    /// A heading for people (`Book imports`).
    public let title: String

    /// - Precondition: `name` and `order` come from code, never from input (they are spliced into SQL).
    public init(name: String, order: String, title: String) {
        precondition(name.allSatisfy { $0.isLetter || $0.isNumber || $0 == "_" }, "ops view name \(name)")
        (self.name, self.order, self.title) = (name, order, title)
    }

    public static let queueOverview = OpsView(name: "queue_overview", order: "kind", title: "Queues")
    public static let productionProgress = OpsView(name: "production_progress", order: "started_at DESC", title: "Productions")
    public static let workers = OpsView(name: "workers", order: "status, heartbeat_at DESC", title: "Workers")
    public static let recentFailures = OpsView(name: "recent_failures", order: "finished_at DESC", title: "Recent failures")
    public static let throughput = OpsView(name: "throughput", order: "minute DESC, kind", title: "Throughput")
    public static let limits = OpsView(name: "limits", order: "name", title: "Limits")
    public static let pauses = OpsView(name: "pauses", order: "scope, name", title: "Pauses")
    public static let schedules = OpsView(name: "schedules", order: "name", title: "Schedules")

    /// The runtime's views, in the order `reparto status` shows them.
    public static let runtime: [OpsView] = [
        queueOverview, productionProgress, workers, recentFailures, throughput, limits, pauses, schedules,
    ]

    /// Every view's rows, in order, each capped at `limit` after skipping `offset`: what `reparto status` shows.
    public static func snapshot(_ views: [OpsView], limit: Int = 50, offset: Int = 0,
                                on client: PostgresClient) async throws -> [(OpsView, PostgresResult)] {
        var rows: [(OpsView, PostgresResult)] = []
        for view in views { rows.append((view, try await view.rows(limit: limit, offset: offset, on: client))) }
        return rows
    }

    /// The view's rows in its order, `limit` of them after skipping `offset`.
    public func rows(limit: Int = 50, offset: Int = 0, on client: PostgresClient) async throws -> PostgresResult {
        try await client.query("SELECT * FROM ops.\(name) ORDER BY \(order) LIMIT $1 OFFSET $2", [limit, offset])
    }
}
