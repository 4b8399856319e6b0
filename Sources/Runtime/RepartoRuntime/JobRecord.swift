import Foundation
import Postgres

/// A job as stored: state, attempts, timing, result and last error.
public struct JobRecord: Sendable, Codable, Equatable {
    public var id: UUID
    public var kind: String
    public var queue: String
    public var state: JobState
    public var attempts: Int
    public var maxAttempts: Int
    public var priority: Int
    public var productionID: UUID?
    public var stage: String?
    public var idempotencyKey: String?
    public var createdAt: Date
    public var startedAt: Date?
    public var finishedAt: Date?
    public var workerID: String?
    /// The handler's result as JSON text.
    public var result: String?
    public var lastError: String?
    /// The parameters as JSON text.
    public var parameters: String

    init?(row: PostgresRow) {
        guard let id = row.uuid("id"), let kind = row.string("kind"), let queue = row.string("queue"),
              let state = row.string("state").flatMap(JobState.init(rawValue:)), let createdAt = row.date("created_at") else {
            return nil
        }
        self.id = id
        self.kind = kind
        self.queue = queue
        self.state = state
        self.attempts = row.int("attempts") ?? 0
        self.maxAttempts = row.int("max_attempts") ?? 1
        self.priority = row.int("priority") ?? 4
        self.productionID = row.uuid("production_id")
        self.stage = row.string("stage")
        self.idempotencyKey = row.string("idempotency_key")
        self.createdAt = createdAt
        self.startedAt = row.date("started_at")
        self.finishedAt = row.date("finished_at")
        self.workerID = row.string("worker_id")
        self.result = row.string("result")
        self.lastError = row.string("last_error")
        self.parameters = row.string("params") ?? "{}"
    }

    /// Decodes the result as `T`.
    public func decodeResult<T: Decodable>(_ type: T.Type) throws -> T? {
        guard let result else { return nil }
        return try JSONDecoder.jobs.decode(T.self, from: Data(result.utf8))
    }
}

/// The jobs of one stage of a production, by state.
public struct StageProgress: Sendable, Codable, Equatable {
    public var stage: String
    public var total: Int
    public var queued: Int
    public var running: Int
    public var succeeded: Int
    /// Dead jobs (out of attempts or not retryable).
    public var failed: Int
    public var cancelled: Int
    /// Succeeded, failed or cancelled.
    public var done: Int { succeeded + failed + cancelled }

}

/// A production's progress, from `ops.production_progress`.
public struct ProductionProgress: Sendable, Codable, Equatable {
    public var id: UUID
    public var name: String
    public var plan: String
    public var stage: String
    /// running, completed, completed_with_failures or cancelled.
    public var state: String
    public var total: Int
    public var queued: Int
    public var running: Int
    public var succeeded: Int
    /// Jobs that are dead (out of attempts or not retryable).
    public var failed: Int
    public var cancelled: Int
    public var done: Int
    public var percent: Double
    public var startedAt: Date
    public var finishedAt: Date?
    public var eta: Date?
    /// Jobs per stage, in the order the stages started (empty for a production without jobs).
    public var stages: [StageProgress] = []

    public var isFinished: Bool { state != "running" }

    /// A row of `ops.production_progress` (``stages`` stays empty: the view has no stages).
    public init?(row: PostgresRow) {
        guard let id = row.uuid("id"), let started = row.date("started_at") else { return nil }
        self.id = id
        name = row.string("name") ?? ""
        plan = row.string("plan") ?? "batch"
        stage = row.string("stage") ?? ""
        state = row.string("state") ?? "running"
        total = row.int("total") ?? 0
        queued = row.int("queued") ?? 0
        running = row.int("running") ?? 0
        succeeded = row.int("succeeded") ?? 0
        failed = row.int("failed") ?? 0
        cancelled = row.int("cancelled") ?? 0
        done = row.int("done") ?? 0
        percent = row.double("percent") ?? 0
        startedAt = started
        finishedAt = row.date("finished_at")
        eta = row.date("eta")
    }
}

/// A production locked for a stage transition (``ProductionPlan/advance(_:on:)``), with the jobs
/// of it that ended without succeeding.
///
/// Its succeeded jobs are not counted: every enqueue into the production waits for this lock,
/// and counting them read every job it has. A plan that needs them counts them on the connection
/// it is given.
public struct ProductionSnapshot: Sendable {
    public var id: UUID
    public var name: String
    public var plan: String
    public var stage: String
    /// The production's parameters (JSON).
    public var parameters: Data
    /// Its jobs that are dead (in the hot `jobs` table; archived ones are in `productions.archived_dead`).
    public var dead: Int
    /// Its jobs that were cancelled (likewise).
    public var cancelled: Int
}

/// Who a worker is, as recorded in the `workers` table.
public struct WorkerIdentity: Sendable {
    public var id: String
    public var host: String
    public var pid: Int
    public var queues: [String]
    public var concurrency: Int
    public var heartbeatInterval: Double

    public init(queues: [String], concurrency: Int, heartbeatInterval: Double) {
        let host = ProcessInfo.processInfo.hostName
        let pid = Int(ProcessInfo.processInfo.processIdentifier)
        self.id = "\(host):\(pid):\(UUID().uuidString.prefix(8).lowercased())"
        self.host = host
        self.pid = pid
        self.queues = queues
        self.concurrency = concurrency
        self.heartbeatInterval = heartbeatInterval
    }
}
