import Foundation
import Postgres

// Retention: finished jobs, finished productions and the rows of gone workers, pruned in batches
// (each batch its own short transaction, oldest first, skipping rows another transaction holds).
extension JobStore {
    /// Productions (`p`) retention removes: finished before `f` seconds ago, with no job left
    /// to run and none dead for less than `d` seconds, in `jobs` or in history. A production's
    /// jobs in `jobs` are looked for by state class, each through its partial index: its active
    /// ones, then its dead ones (runtime migration 0019 dropped the index of all of them).
    static func prunableProductionsCondition(finished f: String, dead d: String) -> String {
        """
        p.state <> 'running' AND p.finished_at < now() - make_interval(secs => \(f)::float8)
        AND NOT EXISTS (SELECT 1 FROM jobs j WHERE j.production_id = p.id AND j.state IN \(JobLifecycle.sqlList(JobLifecycle.active)))
        AND NOT EXISTS (SELECT 1 FROM jobs j WHERE j.production_id = p.id AND j.state = 'dead'
                        AND NOT j.finished_at < now() - make_interval(secs => \(d)::float8))
        AND NOT EXISTS (SELECT 1 FROM job_history h WHERE h.production_id = p.id AND h.state = 'dead'
                        AND NOT h.finished_at < now() - make_interval(secs => \(d)::float8))
        """
    }

    /// Deletes the jobs of the productions `$1` (locked): in any state, since a retry of one job
    /// does not lock its production and may have queued it again since they were chosen.
    static let deleteProductionJobsStatement = """
        DELETE FROM jobs WHERE production_id = ANY($1::uuid[]) AND \(JobLifecycle.sqlAnyState()) RETURNING id
        """

    /// One batch of each class older than `policy` allows: up to `batch` standalone jobs, `batch`
    /// productions (with their jobs and table-read rows) and `batch` worker rows. A dry run
    /// counts instead (the whole backlog, not one batch) and changes nothing.
    ///
    /// Never removed: a job that is not final (queued, running, failed awaiting its retry); a
    /// production still running, or holding such a job, or a dead job younger than the dead
    /// retention; a worker row with a running job on it.
    @available(*, noasync)
    static func pruneBatch(_ policy: RetentionPolicy, batch: Int, dryRun: Bool, on connection: PostgresConnection) throws -> PruneReport {
        // A class kept forever compares with NULL: never older. Each statement numbers only the
        // parameters it uses (PostgreSQL must infer the type of every one it is given).
        let finished: Double? = policy.finished.isFinite ? policy.finished : nil
        let dead: Double? = policy.dead.isFinite ? policy.dead : nil
        let workers: Double? = policy.workers.isFinite ? policy.workers : nil
        let limit = Int32(clamping: batch)
        func jobsWhere(finished f: String, dead d: String) -> String { """
            j.production_id IS NULL AND j.finished_at IS NOT NULL AND (
                (j.state IN ('succeeded', 'cancelled') AND j.finished_at < now() - make_interval(secs => \(f)::float8))
                OR (j.state = 'dead' AND j.finished_at < now() - make_interval(secs => \(d)::float8)))
            """ }

        func workersWhere(_ w: String) -> String { """
            coalesce(w.stopped_at, w.heartbeat_at) < now() - make_interval(secs => \(w)::float8)
            AND NOT reparto_worker_alive(w)
            AND NOT EXISTS (SELECT 1 FROM jobs j WHERE j.state = 'running' AND j.worker_id = w.id)
            """ }
        if dryRun {
            let row = try connection.query("""
                SELECT (SELECT count(*) FROM jobs j WHERE \(jobsWhere(finished: "$1", dead: "$2")))::int AS jobs,
                       (SELECT count(*) FROM productions p WHERE \(prunableProductionsCondition(finished: "$1", dead: "$2")))::int AS productions,
                       (SELECT count(*) FROM jobs j2 WHERE j2.state IN \(JobLifecycle.sqlList(JobLifecycle.final)) AND j2.production_id IN (
                           SELECT p.id FROM productions p WHERE \(prunableProductionsCondition(finished: "$1", dead: "$2"))))::int AS production_jobs,
                       (SELECT count(*) FROM workers w WHERE \(workersWhere("$3")))::int AS workers
                """, [finished, dead, workers]).first
            var report = try pruneHistory(policy, dryRun: true, on: connection)
            (report.jobs, report.productions) = (row?.int("jobs") ?? 0, row?.int("productions") ?? 0)
            (report.productionJobs, report.workers) = (row?.int("production_jobs") ?? 0, row?.int("workers") ?? 0)
            return report
        }
        var report = try pruneHistory(policy, dryRun: false, on: connection)
        report.jobs = try connection.query("""
            DELETE FROM jobs WHERE id IN (
                SELECT j.id FROM jobs j WHERE \(jobsWhere(finished: "$1", dead: "$2"))
                ORDER BY j.finished_at LIMIT $3::int4 FOR UPDATE SKIP LOCKED)
            RETURNING id
            """, [finished, dead, limit]).count
        try connection.transaction { connection in
            let doomed = try connection.query("""
                SELECT p.id FROM productions p WHERE \(prunableProductionsCondition(finished: "$1", dead: "$2"))
                ORDER BY p.finished_at LIMIT $3::int4 FOR UPDATE OF p SKIP LOCKED
                """, [finished, dead, limit]).compactMap { $0.uuid("id") }
            guard !doomed.isEmpty else { return }
            // Its archived jobs go with their days (pruneHistory): they all ended before the production did.
            report.productionJobs = try connection.query(deleteProductionJobsStatement, [doomed]).count
            // Table-read rows go with the production (ON DELETE CASCADE); documents stay (they are
            // shared by content hash) and lose the link.
            report.productions = try connection.query("DELETE FROM productions WHERE id = ANY($1::uuid[]) RETURNING id", [doomed]).count
        }
        report.workers = try connection.query("""
            DELETE FROM workers WHERE id IN (
                SELECT w.id FROM workers w WHERE \(workersWhere("$1"))
                ORDER BY coalesce(w.stopped_at, w.heartbeat_at) LIMIT $2::int4 FOR UPDATE SKIP LOCKED)
            RETURNING id
            """, [workers, limit]).count
        return report
    }
}
