import Foundation
import Postgres

// Producers: JobClient and production types enqueueing jobs.
extension JobStore {
    /// Inserts jobs (their outbox entries are the `publish_pending` flag) and wakes the relays.
    /// Returns each request's job id; a request whose idempotency key exists gets the existing id.
    ///
    /// One statement, which may run on its own (it is its own transaction) or in the caller's: it
    /// locks the jobs' productions, reopens those that are finished batches, and inserts only if
    /// every production then runs. A separate `BEGIN`, admission, insert and `COMMIT` were four
    /// round trips, and the job's clock (`created_at`, its transaction's start) ran through them.
    /// - Throws: ``RepartoError/notFound(what:id:)`` for a production that does not exist,
    ///   ``RepartoError/invalidState(_:)`` for one that takes no jobs (cancelled, or a finished
    ///   pipeline run); nothing is inserted or reopened then.
    @available(*, noasync)
    static func insert(_ requests: [JobRequest], on connection: PostgresConnection) throws -> [UUID] {
        try insert(requests, publishing: false, on: connection).ids
    }

    /// The most jobs an enqueue statement runs with its generic plan (a ``JobPublisher``'s
    /// enqueue, a rate's tick); larger ones are planned for their own size.
    static let genericPlanMaxJobs = 100

    /// The settings those enqueues run with: the claims' (generic plans, no sequential scans).
    /// It reads productions by key; a generic plan made on an empty database with sequential
    /// scans allowed scanned all of `productions`, and a connection keeps its plan.
    static let smallEnqueuePlanSettings = idKeyedPlanSettings

    /// What ``insert(_:publishing:on:)`` inserted.
    struct Inserted {
        /// Each request's job id (the existing job's for a repeated idempotency key).
        var ids: [UUID]
        /// The new jobs inserted already marked published, for the caller to publish.
        var toPublish: [OutboxEntry]
    }

    /// ``insert(_:on:)``; with `publishing`, the new jobs that are due at once are inserted marked
    /// published (the relay leaves them alone and is not woken for them) and returned for the
    /// caller to publish after the commit (``JobPublisher``).
    @available(*, noasync)
    static func insert(_ requests: [JobRequest], publishing: Bool, on connection: PostgresConnection) throws -> Inserted {
        guard !requests.isEmpty else { return Inserted(ids: [], toPublish: []) }
        let productions = Array(Set(requests.compactMap(\.options.productionID))).sorted { $0.uuidString < $1.uuidString }
        let arguments: [any PostgresEncodable] = [
            requests.map(\.id),
            requests.map(\.kind),
            requests.map(\.queue),
            requests.map { PostgresJSON($0.parameters) },
            requests.map { Int16($0.options.priority.value) },
            requests.map { Int32(clamping: max(1, $0.options.maxAttempts)) },
            requests.map { $0.options.timeout.map(JobStore.milliseconds) },
            requests.map(\.options.idempotencyKey),
            requests.map(\.options.productionID),
            requests.map(\.options.stage),
            requests.map(\.options.runAfter),
            requests.map(\.options.limit),
            requests.map(\.options.cost),
        ]
        let statement = switch (productions.isEmpty, publishing) {
        case (true, false): insertStatement
        case (true, true): publishingInsertStatement
        case (false, false): admittedInsertStatement
        case (false, true): publishingAdmittedInsertStatement
        }
        let parameters = productions.isEmpty ? arguments : arguments + [productions]
        // Planned once per connection for small batches: PostgreSQL kept planning this statement
        // afresh (its generic plan is estimated for more rows than a small batch has), 0.5-1.3 ms
        // of every enqueue, more than running it. A large batch keeps a plan made for its size.
        let rows = requests.count <= genericPlanMaxJobs
            ? try connection.query(prepared: statement, parameters, settings: smallEnqueuePlanSettings)
            : try connection.query(prepared: statement, parameters)
        var inserted = 0
        var admitted: [UUID: String] = [:]
        var toPublish: [OutboxEntry] = []
        for row in rows {
            guard let id = row.uuid("id") else { continue }
            if let state = row.string("production_state") { admitted[id] = state; continue }
            inserted += 1
            if row.bool("to_publish") == true, let kind = row.string("kind"), let queue = row.string("queue") {
                toPublish.append(OutboxEntry(id: id, kind: kind, queue: queue, priority: row.int("priority") ?? 4))
            }
        }
        if !productions.isEmpty {
            for id in productions {
                guard let state = admitted[id] else { throw RepartoError.notFound(what: "production", id: id.uuidString.lowercased()) }
                if state != "running" {
                    throw RepartoError.invalidState("production \(id.uuidString.lowercased()) is \(state); it takes no new jobs")
                }
            }
        }
        if inserted == requests.count { return Inserted(ids: requests.map(\.id), toPublish: toPublish) }
        // Some idempotency keys already existed: answer with the jobs that hold them.
        let keys = requests.compactMap(\.options.idempotencyKey)
        var existing: [String: UUID] = [:]
        for row in try connection.query("SELECT id, idempotency_key FROM all_jobs WHERE idempotency_key = ANY($1::text[])", [keys]) {
            if let key = row.string("idempotency_key"), let id = row.uuid("id") { existing[key] = id }
        }
        let ids = requests.map { request in request.options.idempotencyKey.flatMap { existing[$0] } ?? request.id }
        return Inserted(ids: ids, toPublish: toPublish)
    }

    /// The insert of jobs `$1` … `$13` (their columns) that belong to no production: the new
    /// ids, each with a null `production_state`. The relay's wake-up goes with it, once per
    /// transaction however many rows ask for it, and only when a job was inserted for it.
    static let insertStatement = plainInsert(publishing: false)
    /// ``insertStatement``, with the due jobs inserted marked published (see ``insert(_:publishing:on:)``).
    static let publishingInsertStatement = plainInsert(publishing: true)

    private static func plainInsert(publishing: Bool) -> String {
        """
        WITH inserted AS (\(insertSQL(stage: "NULL", admitted: "true", publishing: publishing))
        )
        SELECT \(insertedColumns(publishing: publishing)) FROM inserted i
        """
    }

    /// ``insertStatement`` for jobs of the productions `$14`: locks them (in id order: a
    /// coordinator finishing one waits, then sees these jobs), reopens those that are finished
    /// batches, and inserts only if every one exists and then runs. Also returns a row per
    /// production with the state it has or would have after that (`production_state`: running
    /// for a finished batch, which is reopened only if every production admits the jobs). A job
    /// without a stage gets its production's current one, read from the locked row (the
    /// statement's snapshot may predate the stage a coordinator moved to while this waited for
    /// the lock).
    static let admittedInsertStatement = admittedInsert(publishing: false)
    /// ``admittedInsertStatement``, with the due jobs inserted marked published.
    static let publishingAdmittedInsertStatement = admittedInsert(publishing: true)

    private static func admittedInsert(publishing: Bool) -> String {
        """
        WITH locked AS (
            SELECT id, plan, state, stage FROM productions WHERE id = ANY($14::uuid[]) ORDER BY id FOR UPDATE
        ), admissible AS (
            SELECT count(*) = cardinality($14::uuid[]) AND coalesce(bool_and(l.state = 'running' OR \(reopenable)), true) AS ok
            FROM locked l
        ), reopened AS (
            UPDATE productions p SET state = 'running', finished_at = NULL, updated_at = now()
            FROM locked l, admissible a
            WHERE a.ok AND p.id = l.id AND \(reopenable)
            RETURNING p.id
        ), inserted AS (\(insertSQL(stage: "(SELECT l.stage FROM locked l WHERE l.id = u.production_id)",
                                    admitted: "(SELECT ok FROM admissible)", publishing: publishing))
        )
        SELECT \(insertedColumns(publishing: publishing)) FROM inserted i
        UNION ALL
        SELECT l.id, CASE WHEN \(reopenable) THEN 'running' ELSE l.state END, \(publishing ? "NULL, NULL, NULL, NULL, NULL" : "NULL")
        FROM locked l
        """
    }

    /// An inserted job's row and the relay's wake-up, which PostgreSQL sends once per transaction
    /// however many rows ask for it. With `publishing`, also what the caller publishes when
    /// `to_publish` (the job was inserted marked published; the relay is woken for the others only).
    private static func insertedColumns(publishing: Bool) -> String {
        guard publishing else { return "i.id, NULL::text AS production_state, pg_notify('\(outboxChannel)', '')::text AS notified" }
        return """
            i.id, NULL::text AS production_state, i.kind, i.queue, i.priority::int4 AS priority, NOT i.publish_pending AS to_publish,
                   CASE WHEN i.publish_pending THEN pg_notify('\(outboxChannel)', '') END::text AS notified
            """
    }

    /// Whether the locked production `l` is a finished batch, which new jobs reopen.
    private static let reopenable = "(l.plan = 'batch' AND l.state IN ('completed', 'completed_with_failures'))"

    /// The `INSERT` of the statements: `stage` is a job's stage when its request names none,
    /// `admitted` whether to insert at all, `publishing` whether due jobs are marked published.
    private static func insertSQL(stage: String, admitted: String, publishing: Bool) -> String {
        """

            INSERT INTO jobs (id, kind, queue, params, priority, max_attempts, timeout_ms, idempotency_key,
                              production_id, stage, run_after, limit_key, cost, publish_pending)
            SELECT u.id, u.kind, u.queue, u.params, u.priority, u.max_attempts, u.timeout_ms, u.idempotency_key,
                   u.production_id,
                   -- A production's job without a stage belongs to the production's current stage.
                   coalesce(u.stage, \(stage)),
                   coalesce(u.run_after, now()), u.limit_key, u.cost,
                   \(publishing ? "coalesce(u.run_after > now(), false)" : "true")
            FROM unnest($1::uuid[], $2::text[], $3::text[], $4::jsonb[], $5::int2[], $6::int4[], $7::int4[], $8::text[],
                        $9::uuid[], $10::text[], $11::timestamptz[], $12::text[], $13::float8[])
                 AS u(id, kind, queue, params, priority, max_attempts, timeout_ms, idempotency_key, production_id, stage,
                      run_after, limit_key, cost)
            WHERE \(admitted)
              -- A key is unique among archived jobs too (job_history).
              AND (u.idempotency_key IS NULL
                   OR NOT EXISTS (SELECT 1 FROM job_history h WHERE h.namespace = reparto_namespace() AND h.idempotency_key = u.idempotency_key))
            ON CONFLICT (namespace, idempotency_key) WHERE idempotency_key IS NOT NULL DO NOTHING
            RETURNING \(publishing ? "id, kind, queue, priority, publish_pending" : "id")
        """
    }

    /// Creates a production (a batch, or a multi-stage pipeline run).
    @available(*, noasync)
    static func createProduction(id: UUID, name: String, plan: String, stage: String, parameters: Data,
                                 on connection: PostgresConnection) throws {
        try connection.query("""
            INSERT INTO productions (id, name, plan, stage, params) VALUES ($1, $2, $3, $4, $5::jsonb)
            ON CONFLICT (id) DO NOTHING
            """, [id, name, plan, stage, PostgresJSON(parameters)])
    }
}
