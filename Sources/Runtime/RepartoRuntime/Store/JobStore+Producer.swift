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
        guard !requests.isEmpty else { return [] }
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
        let rows = try connection.query(prepared: productions.isEmpty ? insertStatement : admittedInsertStatement,
                                        productions.isEmpty ? arguments : arguments + [productions])
        var inserted = 0
        var admitted: [UUID: String] = [:]
        for row in rows {
            guard let id = row.uuid("id") else { continue }
            if let state = row.string("production_state") { admitted[id] = state } else { inserted += 1 }
        }
        if !productions.isEmpty {
            for id in productions {
                guard let state = admitted[id] else { throw RepartoError.notFound(what: "production", id: id.uuidString.lowercased()) }
                if state != "running" {
                    throw RepartoError.invalidState("production \(id.uuidString.lowercased()) is \(state); it takes no new jobs")
                }
            }
        }
        if inserted == requests.count { return requests.map(\.id) }
        // Some idempotency keys already existed: answer with the jobs that hold them.
        let keys = requests.compactMap(\.options.idempotencyKey)
        var existing: [String: UUID] = [:]
        for row in try connection.query("SELECT id, idempotency_key FROM all_jobs WHERE idempotency_key = ANY($1::text[])", [keys]) {
            if let key = row.string("idempotency_key"), let id = row.uuid("id") { existing[key] = id }
        }
        return requests.map { request in request.options.idempotencyKey.flatMap { existing[$0] } ?? request.id }
    }

    /// The insert of jobs `$1` … `$13` (their columns) that belong to no production: the new
    /// ids, each with a null `production_state`. The relay's wake-up goes with it, once per
    /// transaction however many rows ask for it, and only when a job was inserted.
    static let insertStatement = """
        WITH inserted AS (\(insertSQL(stage: "NULL", admitted: "true"))
        )
        SELECT i.id, NULL::text AS production_state, pg_notify('\(outboxChannel)', '')::text AS notified FROM inserted i
        """

    /// ``insertStatement`` for jobs of the productions `$14`: locks them (in id order: a
    /// coordinator finishing one waits, then sees these jobs), reopens those that are finished
    /// batches, and inserts only if every one exists and then runs. Also returns a row per
    /// production with the state it has or would have after that (`production_state`: running
    /// for a finished batch, which is reopened only if every production admits the jobs). A job
    /// without a stage gets its production's current one, read from the locked row (the
    /// statement's snapshot may predate the stage a coordinator moved to while this waited for
    /// the lock).
    static let admittedInsertStatement = """
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
        ), inserted AS (\(insertSQL(stage: "(SELECT l.stage FROM locked l WHERE l.id = u.production_id)", admitted: "(SELECT ok FROM admissible)"))
        )
        SELECT i.id, NULL::text AS production_state, pg_notify('\(outboxChannel)', '')::text AS notified FROM inserted i
        UNION ALL
        SELECT l.id, CASE WHEN \(reopenable) THEN 'running' ELSE l.state END, NULL FROM locked l
        """

    /// Whether the locked production `l` is a finished batch, which new jobs reopen.
    private static let reopenable = "(l.plan = 'batch' AND l.state IN ('completed', 'completed_with_failures'))"

    /// The `INSERT` of both statements: `stage` is a job's stage when its request names none,
    /// `admitted` whether to insert at all.
    private static func insertSQL(stage: String, admitted: String) -> String {
        """

            INSERT INTO jobs (id, kind, queue, params, priority, max_attempts, timeout_ms, idempotency_key,
                              production_id, stage, run_after, limit_key, cost)
            SELECT u.id, u.kind, u.queue, u.params, u.priority, u.max_attempts, u.timeout_ms, u.idempotency_key,
                   u.production_id,
                   -- A production's job without a stage belongs to the production's current stage.
                   coalesce(u.stage, \(stage)),
                   coalesce(u.run_after, now()), u.limit_key, u.cost
            FROM unnest($1::uuid[], $2::text[], $3::text[], $4::jsonb[], $5::int2[], $6::int4[], $7::int4[], $8::text[],
                        $9::uuid[], $10::text[], $11::timestamptz[], $12::text[], $13::float8[])
                 AS u(id, kind, queue, params, priority, max_attempts, timeout_ms, idempotency_key, production_id, stage,
                      run_after, limit_key, cost)
            WHERE \(admitted)
              -- A key is unique among archived jobs too (job_history).
              AND (u.idempotency_key IS NULL
                   OR NOT EXISTS (SELECT 1 FROM job_history h WHERE h.namespace = reparto_namespace() AND h.idempotency_key = u.idempotency_key))
            ON CONFLICT (namespace, idempotency_key) WHERE idempotency_key IS NOT NULL DO NOTHING
            RETURNING id
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
