import Composition
import Foundation
import Logging
import Postgres
import RepartoRuntime

/// `reparto bench ops`: the operations views and retention at production scale.
///
/// A database of its own is filled the way a month of work leaves it: `rows` finished jobs over
/// `days` days (archived, as the coordinator leaves them, with their rollups) in `productions`
/// productions, `deadPercent` of them dead, plus `queued` jobs waiting in `jobs`. Then each view
/// `reparto status` and the dashboard read is timed (`repeats` runs, median and worst), a job and
/// a production are looked up, and retention removes the older half of the history.
struct OpsBenchmark {
    var rows: Int
    var days: Int
    var productions: Int
    var deadPercent: Double
    var queued: Int
    var repeats: Int

    struct Timing: Codable {
        var name: String
        var medianMs: Double
        var worstMs: Double
        var rows: Int
    }

    struct Report: Codable, CustomStringConvertible {
        var rows: Int
        var days: Int
        var productions: Int
        var queued: Int
        var fillSeconds: Double
        var historyBytes: Int
        var hotBytes: Int
        var views: [Timing]
        var pruneSeconds: Double
        var prunedJobs: Int
        var prunedDays: Int
        var prunedProductions: Int

        var description: String {
            var text = "ops bench: \(rows) finished jobs over \(days) days in \(productions) productions, \(queued) queued "
            text += "(filled in \(String(format: "%.1f", fillSeconds)) s; history \(historyBytes / 1_048_576) MiB, jobs \(hotBytes / 1_048_576) MiB)\n"
            for view in views {
                text += "  \(view.name.padding(toLength: 36, withPad: " ", startingAt: 0)) median \(String(format: "%7.1f", view.medianMs)) ms"
                text += "  worst \(String(format: "%7.1f", view.worstMs)) ms  (\(view.rows) rows)\n"
            }
            text += "  prune half the history: \(String(format: "%.2f", pruneSeconds)) s, \(prunedJobs) jobs in \(prunedDays) whole days, "
            text += "\(prunedProductions) productions\n"
            return text
        }
    }

    func run(admin: PostgresConfiguration, logger: Logger) async throws -> Report {
        let database = try await BenchDatabase.create(admin: admin, logger: logger)
        do {
            let report = try await measure(database, logger: logger)
            await database.drop()
            return report
        } catch {
            await database.drop()
            throw error
        }
    }

    private func measure(_ database: BenchDatabase, logger: Logger) async throws -> Report {
        let postgres = database.postgres
        let started = ContinuousClock.now
        try await fill(postgres, logger: logger)
        let fillSeconds = (ContinuousClock.now - started) / .seconds(1)
        let sizes = try await postgres.query("""
            SELECT (SELECT coalesce(sum(pg_total_relation_size(i.inhrelid)), 0) FROM pg_inherits i
                    WHERE i.inhparent IN ('job_history_done'::regclass, 'job_history'::regclass))::int8 AS history,
                   pg_total_relation_size('jobs')::int8 AS hot
            """).first

        var timings: [Timing] = []
        func time(_ name: String, _ body: @escaping @Sendable () async throws -> Int) async throws {
            var samples: [Double] = []
            var count = 0
            for _ in 0..<repeats {
                let start = ContinuousClock.now
                count = try await body()
                samples.append((ContinuousClock.now - start) / .milliseconds(1))
            }
            samples.sort()
            timings.append(Timing(name: name, medianMs: samples[samples.count / 2], worstMs: samples.last ?? 0, rows: count))
        }
        for view in OpsView.runtime {
            try await time("status: ops.\(view.name)") { try await view.rows(limit: 20, on: postgres).count }
        }
        try await time("status --json (every runtime view)") {
            try await OpsView.snapshot(OpsView.runtime, limit: 20, on: postgres).reduce(0) { $0 + $1.1.count }
        }
        let client = JobClient(postgres: postgres)
        let archived = try await postgres.query("SELECT id FROM job_history_dead ORDER BY finished_at DESC LIMIT 1").first?.uuid("id")
        let production = try await postgres.query("SELECT id FROM productions ORDER BY created_at LIMIT 1").first?.uuid("id")
        if let archived {
            try await time("job lookup (archived)") { _ = try await client.job(archived); return 1 }
        }
        if let production {
            try await time("production progress (archived)") { try await client.progress(production).stages.count }
        }

        let pruneStart = ContinuousClock.now
        let pruned = try await client.prune(RetentionPolicy(finished: Double(days) * 86_400 / 2, dead: Double(days) * 86_400 / 2,
                                                            workers: 86_400), batch: 100_000)
        let pruneSeconds = (ContinuousClock.now - pruneStart) / .seconds(1)
        return Report(rows: rows, days: days, productions: productions, queued: queued, fillSeconds: fillSeconds,
                      historyBytes: sizes?.int("history") ?? 0, hotBytes: sizes?.int("hot") ?? 0, views: timings,
                      pruneSeconds: pruneSeconds, prunedJobs: pruned.historyJobs + pruned.jobs + pruned.productionJobs,
                      prunedDays: pruned.historyDays, prunedProductions: pruned.productions)
    }

    /// History as the coordinator leaves it: finished jobs archived by day, their rollups, the
    /// productions' archived counts; and a backlog in `jobs`.
    private func fill(_ postgres: PostgresClient, logger: Logger) async throws {
        let span = Double(days) * 86_400
        _ = try await postgres.query("""
            INSERT INTO productions (id, name, plan, stage, state, created_at, updated_at, finished_at)
            SELECT gen_random_uuid(), 'bench ' || i, 'batch', 'main', 'completed',
                   now() - make_interval(secs => $2::float8 * (1 - (i - 1)::float8 / $1::float8)) - interval '5 minutes',
                   now() - make_interval(secs => $2::float8 * (1 - i::float8 / $1::float8)),
                   now() - make_interval(secs => $2::float8 * (1 - i::float8 / $1::float8))
            FROM generate_series(1, $1::int4) AS i
            """, [Int32(clamping: productions), span])
        _ = try await postgres.query("""
            SELECT reparto_history_partition(((now() - make_interval(days => d)) AT TIME ZONE 'UTC')::date, s)
            FROM generate_series(0, $1::int4) AS d, unnest(ARRAY['succeeded', 'dead']) AS s
            """, [Int32(clamping: days)])
        let chunk = 1_000_000
        var done = 0
        while done < rows {
            let count = min(chunk, rows - done)
            // Job i of `rows` finished at a steady rate over the span, in production i * productions / rows.
            _ = try await postgres.query("""
                WITH p AS (SELECT id, row_number() OVER (ORDER BY created_at) AS n FROM productions)
                INSERT INTO job_history (id, kind, queue, params, state, attempts, production_id, stage, created_at, run_after,
                                         started_at, finished_at, worker_id, publish_pending, last_error)
                SELECT gen_random_uuid(), (ARRAY['table-read.parse', 'speech.synthesize', 'table-read.assemble', 'book-import.enrich', 'noop'])[1 + i % 5],
                       'reparto.default', '{}', CASE WHEN (i % 10000) < $5::float8 * 100 THEN 'dead' ELSE 'succeeded' END, 1,
                       p.id, 'main', t - interval '2 seconds', t - interval '2 seconds', t - make_interval(secs => 0.05 + (i % 97) / 100.0), t,
                       'bench-worker', false, CASE WHEN (i % 10000) < $5::float8 * 100 THEN 'bench: planned failure' END
                FROM generate_series($1::int8, $2::int8) AS i
                CROSS JOIN LATERAL (SELECT now() - make_interval(secs => $3::float8 * (1 - i::float8 / $4::float8)) AS t) AS at
                JOIN p ON p.n = 1 + (i * $6::int8) / ($4::int8 + 1)
                """, [Int64(done + 1), Int64(done + count), span, Int64(rows), deadPercent, Int64(productions)])
            done += count
            logger.info("ops bench: filled", metadata: ["rows": "\(done)"])
        }
        _ = try await postgres.query("""
            INSERT INTO job_days (namespace, day, queue, kind, state, n)
            SELECT namespace, (finished_at AT TIME ZONE 'UTC')::date, queue, kind, state, count(*) FROM job_history GROUP BY 1, 2, 3, 4, 5
            """)
        _ = try await postgres.query("""
            INSERT INTO job_minutes (namespace, minute, queue, kind, state, bucket, n)
            SELECT namespace, date_trunc('minute', finished_at), queue, kind, state, reparto_latency_bucket(state, started_at, finished_at), count(*)
            FROM job_history WHERE finished_at > now() - interval '2 hours' GROUP BY 1, 2, 3, 4, 5, 6
            """)
        _ = try await postgres.query("""
            UPDATE productions p SET archived_total = c.total, archived_succeeded = c.succeeded, archived_dead = c.dead,
                   state = CASE WHEN c.dead > 0 THEN 'completed_with_failures' ELSE 'completed' END
            FROM (SELECT production_id, count(*) AS total, count(*) FILTER (WHERE state = 'succeeded') AS succeeded,
                         count(*) FILTER (WHERE state = 'dead') AS dead
                  FROM job_history GROUP BY production_id) c
            WHERE p.id = c.production_id
            """)
        _ = try await postgres.query("""
            INSERT INTO jobs (id, kind, queue, params, state, publish_pending, created_at, run_after)
            SELECT gen_random_uuid(), 'speech.synthesize', 'reparto.default', '{}', 'queued', false,
                   now() - make_interval(secs => i::float8 / 100), now() - make_interval(secs => i::float8 / 100)
            FROM generate_series(1, $1::int4) AS i
            """, [Int32(clamping: queued)])
        _ = try await postgres.query("VACUUM ANALYZE")
    }
}
