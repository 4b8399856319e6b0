import Foundation
import Postgres

// Hot jobs and history (migrations/0010_history_and_rollups.sql): finished work leaves `jobs` for
// the partitioned `job_history`, and the rollups' deltas are folded. Both are the coordinator
// leader's housekeeping and serve every namespace, like the asset sweep.
extension JobStore {
    /// Rows that one archive or fold statement handles at most.
    static let historyBatch = 5_000

    /// Moves up to `batch` finished jobs older than `olderThan` seconds into `job_history`:
    /// standalone jobs, and the jobs of productions that are no longer running (a running
    /// production's stage checks, progress and retries read `jobs`). Returns how many moved.
    ///
    /// The production rows are share-locked while their jobs move, so a retry (which sets its
    /// production running first) waits for the move and then brings the jobs back whole.
    @available(*, noasync)
    static func archiveBatch(olderThan seconds: Double, batch: Int = historyBatch, on connection: PostgresConnection) throws -> Int {
        try connection.transaction { connection in
            try connection.query("SET LOCAL reparto.all_namespaces = 'on'")
            let arguments: [any PostgresEncodable] = [seconds, Int32(clamping: batch)]
            try connection.execute(setArchiveLookSettings)
            let rows = try Array(connection.query(archivableStandaloneStatement, arguments))
                + Array(connection.query(archivableProductionJobsStatement, arguments))
            try connection.execute(resetArchiveLookSettings)
            guard !rows.isEmpty else { return 0 }
            // The day partitions the batch needs: a dead job's and a done job's day are apart.
            let partitions = Set(rows.compactMap { row in
                row.string("day").map { $0 + (row.string("state") == JobState.dead.rawValue ? " dead" : " done") }
            })
            for partition in partitions.sorted() {
                let parts = partition.split(separator: " ").map(String.init)
                try connection.query("SELECT reparto_history_partition($1::date, $2)",
                                     [parts[0], parts[1] == "dead" ? JobState.dead.rawValue : JobState.succeeded.rawValue])
            }
            try connection.query("""
                WITH moved AS (DELETE FROM jobs WHERE id = ANY($1::uuid[]) RETURNING *),
                \(archivedCounts("+"))
                INSERT INTO job_history SELECT * FROM moved
                """, [rows.compactMap { $0.uuid("id") }])
            return rows.count
        }
    }

    /// The looks for movable jobs walk their indexes in order whatever the statistics say. With
    /// those of a table vacuumed empty (every finished job archived) and filled since, a look
    /// took every final job of every production through a bitmap and sorted them, the running
    /// production's included, for each step.
    static let archiveLookPlanSettings: KeyValuePairs<String, String> = [
        "enable_seqscan": "off", "enable_bitmapscan": "off", "enable_sort": "off",
    ]
    /// ``archiveLookPlanSettings`` for the rest of the caller's transaction, and back to the defaults.
    static let setArchiveLookSettings = setLocal(archiveLookPlanSettings)
    static let resetArchiveLookSettings = resetLocal(archiveLookPlanSettings)

    /// Standalone jobs finished more than `$1` seconds ago, at most `$2`, oldest first, locked
    /// (skipping those a worker or another pass holds): a walk of `jobs_standalone_final`
    /// (migration 0017) from its start, which holds nothing else.
    static let archivableStandaloneStatement = """
        SELECT j.id, (j.finished_at AT TIME ZONE 'UTC')::date::text AS day, j.state FROM jobs j
        WHERE j.production_id IS NULL AND j.state IN \(JobLifecycle.sqlList(JobLifecycle.final))
          AND j.finished_at < now() - make_interval(secs => $1::float8)
        ORDER BY j.finished_at LIMIT $2::int4 FOR UPDATE OF j SKIP LOCKED
        """

    /// The finished jobs, older than `$1` seconds, of productions no longer running: at most `$2`,
    /// each production's oldest first, the jobs locked and the productions share-locked (both
    /// skipping rows held elsewhere). It visits the productions that have a finished job in `jobs`,
    /// one step of `jobs_production_final` each (a loose index scan; ordered by that index's whole
    /// key, so that no other index of the production, which would walk its waiting jobs too, can
    /// serve the step without sorting), and reads the jobs of those no longer running: a running
    /// production costs one step however many of its jobs have finished.
    static let archivableProductionJobsStatement = """
        WITH RECURSIVE present AS (
            (SELECT j.production_id AS id FROM jobs j
             WHERE j.production_id IS NOT NULL AND j.state IN \(JobLifecycle.sqlList(JobLifecycle.final))
             ORDER BY j.production_id, j.finished_at LIMIT 1)
            UNION ALL
            SELECT (SELECT j.production_id FROM jobs j
                    WHERE j.production_id > present.id AND j.state IN \(JobLifecycle.sqlList(JobLifecycle.final))
                    ORDER BY j.production_id, j.finished_at LIMIT 1)
            FROM present WHERE present.id IS NOT NULL
        )
        SELECT j.id, (j.finished_at AT TIME ZONE 'UTC')::date::text AS day, j.state
        FROM present
        CROSS JOIN LATERAL (
            SELECT p.id FROM productions p WHERE p.id = present.id AND p.state <> 'running' FOR SHARE SKIP LOCKED) p
        CROSS JOIN LATERAL (
            SELECT j.id, j.finished_at, j.state FROM jobs j
            WHERE j.production_id = p.id AND j.state IN \(JobLifecycle.sqlList(JobLifecycle.final))
              AND j.finished_at < now() - make_interval(secs => $1::float8)
            ORDER BY j.finished_at LIMIT $2::int4 FOR UPDATE SKIP LOCKED) j
        LIMIT $2::int4
        """

    /// The CTE `counted` that adds (`+`) or takes off (`-`) the jobs of `moved` to their
    /// productions' archived counts: the one shape both directions of the move share.
    private static func archivedCounts(_ sign: String) -> String {
        precondition(sign == "+" || sign == "-")
        return """
            counted AS (
                UPDATE productions p SET archived_total = p.archived_total \(sign) c.total,
                       archived_succeeded = p.archived_succeeded \(sign) c.succeeded,
                       archived_dead = p.archived_dead \(sign) c.dead, archived_cancelled = p.archived_cancelled \(sign) c.cancelled
                FROM (SELECT production_id, count(*) AS total, count(*) FILTER (WHERE state = 'succeeded') AS succeeded,
                             count(*) FILTER (WHERE state = 'dead') AS dead, count(*) FILTER (WHERE state = 'cancelled') AS cancelled
                      FROM moved WHERE production_id IS NOT NULL GROUP BY production_id) c
                WHERE p.id = c.production_id)
            """
    }

    /// Brings archived jobs back into `jobs` (before a retry): the jobs `ids` that are dead or
    /// cancelled, and every job of `production`. Returns how many came back.
    @available(*, noasync)
    static func unarchive(jobs ids: [UUID], production: UUID?, on connection: PostgresConnection) throws -> Int {
        try connection.query("""
            WITH moved AS (
                DELETE FROM job_history
                WHERE (id = ANY($1::uuid[]) AND state IN \(JobLifecycle.sqlList(JobLifecycle.retryable))) OR production_id = $2
                RETURNING *),
            \(archivedCounts("-"))
            INSERT INTO jobs SELECT * FROM moved
            RETURNING id
            """, [ids, production]).count
    }

    /// Folds the rollups' deltas into `job_minutes` and `job_days`, and drops minutes older than
    /// two hours. Returns how many delta rows were folded.
    @available(*, noasync)
    static func foldStats(on connection: PostgresConnection) throws -> Int {
        try connection.transaction { connection in
            try connection.query("SET LOCAL reparto.all_namespaces = 'on'")
            let folded = try connection.query("""
                WITH d AS (DELETE FROM job_stats_delta RETURNING *),
                minutes AS (
                    INSERT INTO job_minutes (namespace, minute, queue, kind, state, bucket, n)
                    SELECT namespace, minute, queue, kind, state, bucket, sum(n) FROM d
                    WHERE minute > now() - interval '2 hours'
                    GROUP BY 1, 2, 3, 4, 5, 6
                    ON CONFLICT (namespace, minute, queue, kind, state, bucket) DO UPDATE SET n = job_minutes.n + excluded.n),
                days AS (
                    INSERT INTO job_days (namespace, day, queue, kind, state, n)
                    SELECT namespace, (minute AT TIME ZONE 'UTC')::date, queue, kind, state, sum(n) FROM d
                    GROUP BY 1, 2, 3, 4, 5
                    ON CONFLICT (namespace, day, queue, kind, state) DO UPDATE SET n = job_days.n + excluded.n)
                SELECT count(*)::int AS n FROM d
                """).first?.int("n") ?? 0
            try connection.query("DELETE FROM job_minutes WHERE minute < now() - interval '2 hours'")
            return folded
        }
    }

    /// `2026-11-26`: the UTC day that starts at `instant`.
    static func utcDay(_ instant: Date) -> String {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        let parts = calendar.dateComponents([.year, .month, .day], from: instant)
        return String(format: "%04d-%02d-%02d", parts.year ?? 1970, parts.month ?? 1, parts.day ?? 1)
    }

    /// The day partitions of history, oldest first: name, first instant, and whether it holds
    /// dead jobs (else succeeded and cancelled ones).
    @available(*, noasync)
    static func historyPartitions(on connection: PostgresConnection) throws -> [(name: String, day: Date, dead: Bool)] {
        try connection.query("""
            SELECT c.relname AS name, extract(epoch FROM to_date(substring(c.relname FROM '(\\d{8})$'), 'YYYYMMDD'))::float8 AS day,
                   i.inhparent = 'job_history_dead'::regclass AS dead
            FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid
            WHERE i.inhparent IN ('job_history_done'::regclass, 'job_history_dead'::regclass)
              AND c.relname ~ '^job_history_(done|dead)_\\d{8}$'
            ORDER BY substring(c.relname FROM '(\\d{8})$'), c.relname
            """).compactMap { row in
            guard let name = row.string("name"), let day = row.double("day") else { return nil }
            return (name, Date(timeIntervalSince1970: day), row.bool("dead") ?? false)
        }
    }

    /// History past `policy`: each day of succeeded and cancelled jobs that ended before
    /// `REPARTO_RETENTION`'s cutoff, and each day of dead jobs before `REPARTO_DEAD_RETENTION`'s,
    /// is dropped whole (a day another namespace also holds loses only this namespace's rows);
    /// the rollups' days go with them. A day is dropped once all of it is past the cutoff, so up
    /// to a day more than the retention is kept.
    @available(*, noasync)
    static func pruneHistory(_ policy: RetentionPolicy, dryRun: Bool, on connection: PostgresConnection) throws -> PruneReport {
        var report = PruneReport()
        let now = Date()
        // The days' counts come from the rollups; folded first, so rows dropped now are not counted again.
        _ = try foldStats(on: connection)
        for partition in try historyPartitions(on: connection) {
            let retention = partition.dead ? policy.dead : policy.finished
            guard retention.isFinite, partition.day.addingTimeInterval(86_400) <= now.addingTimeInterval(-retention) else { continue }
            let table = "\"\(partition.name)\""
            let states = partition.dead ? "('dead')" : "('succeeded', 'cancelled')"
            // Whose jobs the day holds, from the rollups (a scan of the day would cost seconds).
            let holders = try connection.transaction { connection in
                try connection.query("SET LOCAL reparto.all_namespaces = 'on'")
                return try connection.query("""
                    SELECT coalesce(sum(n) FILTER (WHERE namespace = reparto_namespace()), 0)::int8 AS own,
                           count(*) FILTER (WHERE namespace <> reparto_namespace() AND n > 0)::int AS others
                    FROM job_days_all WHERE day = $1::date AND state IN \(states)
                    """, [Self.utcDay(partition.day)]).first
            }
            let own = holders?.int("own") ?? 0, others = holders?.int("others") ?? 0
            report.historyJobs += own
            guard !dryRun else { continue }
            if others == 0 {
                try connection.query("DROP TABLE IF EXISTS \(table)")
                report.historyDays += 1
            } else if own > 0 {
                try connection.query("DELETE FROM \(table) WHERE namespace = reparto_namespace()")
            }
        }
        if !dryRun {
            for (states, retention) in [("('succeeded', 'cancelled', 'failed')", policy.finished), ("('dead')", policy.dead)] where retention.isFinite {
                try connection.query("""
                    DELETE FROM job_days WHERE state IN \(states) AND day < (now() - make_interval(secs => $1::float8)) AT TIME ZONE 'UTC'
                    """, [retention])
            }
        }
        return report
    }
}
