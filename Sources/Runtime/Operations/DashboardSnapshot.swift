import Foundation
import RepartoRuntime

/// Everything the dashboard shows, read from the `ops.*` views in one snapshot; the body of
/// `GET /api/overview` (JSON keys in snake_case, times in ISO 8601).
public struct DashboardSnapshot: Codable, Sendable, Equatable {
    /// The database's `now()` when the snapshot was taken.
    public var generatedAt: Date
    /// `ops.queue_overview`, one row per job kind.
    public var queues: [QueueRow]
    /// Sums of ``queues``.
    public var totals: QueueTotals
    /// `ops.production_progress`, running productions first, then the most recent.
    /// From `ops.production_progress`; `failed` counts dead jobs, as in the view.
    public var productions: [ProductionProgress]
    /// `ops.workers`, alive first.
    public var workers: [WorkerRow]
    /// Workers by status over all of `ops.workers`.
    public var workerCounts: WorkerCounts
    /// `ops.recent_failures`, newest first.
    public var failures: [FailureRow]
    /// `ops.throughput` summed over kinds, one point per minute of the last hour that had jobs.
    public var throughput: [ThroughputPoint]
    /// `ops.limits`: the cluster-wide limits and their use.
    public var limits: [LimitRow] = []
    /// `ops.pauses`: the paused queues and kinds.
    public var pauses: [PauseRow] = []
    /// Each production type's own `ops.*` views (`ops.book_imports`), as generic tables.
    public var productionViews: [ViewTable] = []

    /// One `ops.*` view's rows: column names and text cells (NULL as nil), in the view's order.
    public struct ViewTable: Codable, Sendable, Equatable {
        /// The view's name (`book_imports`).
        public var name: String
        /// Its heading (`Book imports`).
        public var title: String
        public var columns: [String]
        public var rows: [[String?]]
    }

    /// `ops.generation_usage`: the usage ledger of the last 24 hours per provider, model and capability.
    public var usage: [UsageRow] = []

    /// What one provider and model used for one capability in the last 24 hours.
    public struct UsageRow: Codable, Sendable, Equatable {
        public var provider: String
        /// The model (for `speech`, the voice).
        public var model: String
        /// `speech`, `text`, `embedding` or `image`.
        public var capability: String
        /// Provider calls that answered.
        public var calls: Int
        /// Results answered from stored rows instead.
        public var reused: Int
        public var inputTokens: Int64
        public var outputTokens: Int64
        public var characters: Int64
        public var images: Int64
        public var audioSeconds: Double
        public var lastUsedAt: Date?
    }

    /// A cluster-wide limit and its use.
    public struct LimitRow: Codable, Sendable, Equatable {
        public var name: String
        public var ratePerSecond: Double?
        public var burst: Double?
        public var concurrency: Int?
        public var budget: Double?
        public var budgetWindowSeconds: Double?
        public var running: Int
        public var waiting: Int
        public var tokens: Double?
        /// Set while a provider's "retry after" holds the limit back.
        public var blockedUntil: Date?
    }

    /// A paused queue or kind.
    public struct PauseRow: Codable, Sendable, Equatable {
        /// `queue` or `kind`.
        public var scope: String
        public var name: String
        public var pausedAt: Date?
        /// Its jobs waiting for the resume.
        public var parked: Int
    }

    /// Job counts of one kind.
    public struct QueueRow: Codable, Sendable, Equatable {
        public var kind: String
        public var queued: Int
        public var running: Int
        public var succeeded: Int
        public var failed: Int
        public var dead: Int
        public var cancelled: Int
        public var p50Ms: Double?
        public var p95Ms: Double?
        public var oldestQueuedAt: Date?
    }

    /// Job counts over all kinds.
    public struct QueueTotals: Codable, Sendable, Equatable {
        public var queued = 0
        public var running = 0
        public var succeeded = 0
        public var failed = 0
        public var dead = 0
        public var cancelled = 0
    }


    /// A worker process.
    public struct WorkerRow: Codable, Sendable, Equatable {
        public var id: String
        public var host: String
        public var pid: Int
        public var queues: [String]
        public var concurrency: Int
        /// `alive`, `stale` or `stopped`.
        public var status: String
        public var startedAt: Date?
        public var heartbeatAt: Date?
        public var jobsSucceeded: Int
        public var jobsFailed: Int
        public var inFlight: Int
    }

    /// Workers by status.
    public struct WorkerCounts: Codable, Sendable, Equatable {
        public var alive = 0
        public var stale = 0
        public var stopped = 0
    }

    /// A failed attempt waiting for its retry, or a dead job.
    public struct FailureRow: Codable, Sendable, Equatable {
        public var id: UUID
        public var kind: String
        public var productionId: UUID?
        public var state: String
        public var attempts: Int
        public var maxAttempts: Int
        public var lastError: String?
        public var finishedAt: Date?
        public var workerId: String?
    }

    /// Jobs finished in one minute.
    public struct ThroughputPoint: Codable, Sendable, Equatable {
        public var minute: Date
        public var succeeded: Int
        public var failed: Int
    }

    /// The JSON encoder of the API (snake_case keys, ISO 8601 dates, sorted keys).
    public static var encoder: JSONEncoder {
        let encoder = JSONEncoder()
        encoder.keyEncodingStrategy = .convertToSnakeCase
        encoder.dateEncodingStrategy = .iso8601
        encoder.outputFormatting = [.sortedKeys]
        return encoder
    }

    /// The matching decoder, for clients and tests.
    public static var decoder: JSONDecoder {
        let decoder = JSONDecoder()
        decoder.keyDecodingStrategy = .convertFromSnakeCase
        decoder.dateDecodingStrategy = .iso8601
        return decoder
    }
}
