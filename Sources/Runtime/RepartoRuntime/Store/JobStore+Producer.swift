import Foundation
import Postgres

// Producers: JobClient and production types enqueueing jobs.
extension JobStore {
    /// Inserts jobs (their outbox entries are the `publish_pending` flag) and wakes the relays.
    /// Returns each request's job id; a request whose idempotency key exists gets the existing id.
    @available(*, noasync)
    static func insert(_ requests: [JobRequest], on connection: PostgresConnection) throws -> [UUID] {
        guard !requests.isEmpty else { return [] }
        let productions = Set(requests.compactMap(\.options.productionID))
        if !productions.isEmpty {
            // Lock first (a coordinator finishing the production waits, then sees these jobs), then
            // reopen a finished batch; a cancelled production or a finished pipeline run takes no
            // jobs. One statement: each round trip was a tenth of a submission's time.
            let rows = try connection.query(prepared: productionAdmissionStatement, [Array(productions)])
            for row in rows where row.string("state") != "running" {
                throw RepartoError.invalidState("production \(row.string("id") ?? "?") is \(row.string("state") ?? "?"); it takes no new jobs")
            }
            if rows.count != productions.count {
                let found = Set(rows.compactMap { $0.uuid("id") })
                let missing = productions.subtracting(found).first.map(\.uuidString) ?? "?"
                throw RepartoError.notFound(what: "production", id: missing.lowercased())
            }
        }
        // The relay's wake-up goes with the insert (one round trip less), once per transaction
        // however many rows ask for it, and only when a job was inserted.
        let result = try connection.query(prepared: """
            WITH inserted AS (
            INSERT INTO jobs (id, kind, queue, params, priority, max_attempts, timeout_ms, idempotency_key,
                              production_id, stage, run_after, limit_key, cost)
            SELECT u.id, u.kind, u.queue, u.params, u.priority, u.max_attempts, u.timeout_ms, u.idempotency_key,
                   u.production_id,
                   -- A production's job without a stage belongs to the production's current stage.
                   coalesce(u.stage, (SELECT p.stage FROM productions p WHERE p.id = u.production_id)),
                   coalesce(u.run_after, now()), u.limit_key, u.cost
            FROM unnest($1::uuid[], $2::text[], $3::text[], $4::jsonb[], $5::int2[], $6::int4[], $7::int4[], $8::text[],
                        $9::uuid[], $10::text[], $11::timestamptz[], $12::text[], $13::float8[])
                 AS u(id, kind, queue, params, priority, max_attempts, timeout_ms, idempotency_key, production_id, stage,
                      run_after, limit_key, cost)
            -- A key is unique among archived jobs too (job_history).
            WHERE u.idempotency_key IS NULL
               OR NOT EXISTS (SELECT 1 FROM job_history h WHERE h.namespace = reparto_namespace() AND h.idempotency_key = u.idempotency_key)
            ON CONFLICT (namespace, idempotency_key) WHERE idempotency_key IS NOT NULL DO NOTHING
            RETURNING id
            )
            SELECT id, pg_notify('\(outboxChannel)', '') FROM inserted
            """, [
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
            ])
        if result.count == requests.count { return requests.map(\.id) }
        // Some idempotency keys already existed: answer with the jobs that hold them.
        let keys = requests.compactMap(\.options.idempotencyKey)
        var existing: [String: UUID] = [:]
        for row in try connection.query("SELECT id, idempotency_key FROM all_jobs WHERE idempotency_key = ANY($1::text[])", [keys]) {
            if let key = row.string("idempotency_key"), let id = row.uuid("id") { existing[key] = id }
        }
        return requests.map { request in request.options.idempotencyKey.flatMap { existing[$0] } ?? request.id }
    }

    /// Locks the productions `$1` (in id order), reopens those that are finished batches, and
    /// returns each one's id and state after that.
    static let productionAdmissionStatement = """
        WITH locked AS (
            SELECT id, plan, state FROM productions WHERE id = ANY($1::uuid[]) ORDER BY id FOR UPDATE
        ), reopened AS (
            UPDATE productions p SET state = 'running', finished_at = NULL, updated_at = now()
            FROM locked l
            WHERE p.id = l.id AND l.plan = 'batch' AND l.state IN ('completed', 'completed_with_failures')
            RETURNING p.id
        )
        SELECT l.id, CASE WHEN r.id IS NULL THEN l.state ELSE 'running' END AS state
        FROM locked l LEFT JOIN reopened r ON r.id = l.id
        """

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
