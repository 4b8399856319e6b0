import Foundation
import Metrics

// Retention on demand (`reparto prune`); the coordinator leader runs the same batches on its own.
extension JobClient {
    /// Removes what `policy` no longer keeps, in batches of `batch` rows (each its own short
    /// transaction, so the database never stalls), until nothing is left; with `dryRun`, only
    /// counts. See ``RetentionPolicy`` for what is kept.
    public func prune(_ policy: RetentionPolicy, batch: Int = 1000, dryRun: Bool = false) async throws -> PruneReport {
        var total = PruneReport()
        while true {
            let step = try await postgres.withConnection { try JobStore.pruneBatch(policy, batch: batch, dryRun: dryRun, on: $0) }
            total = total + step
            if !dryRun { PruneReport.record(step) }
            if dryRun || (step.jobs < batch && step.productions < batch && step.workers < batch && step.historyJobs < batch) { return total }
        }
    }
}

extension PruneReport {
    /// `reparto_pruned_rows_total{table}`.
    static func record(_ report: PruneReport) {
        for (table, count) in [("jobs", report.jobs + report.productionJobs), ("job_history", report.historyJobs), ("productions", report.productions), ("workers", report.workers)]
        where count > 0 {
            Counter(label: "reparto_pruned_rows_total", dimensions: [("table", table)]).increment(by: count)
        }
    }
}
