import RepartoRuntime
import AssetSweep

/// Housekeeping as text: the asset volume's usage and sweeps, retention's pruning.
public enum HousekeepingText {
    /// A table of the areas and a total line.
    public static func usage(_ usage: AssetUsage) -> String {
        func row(_ name: String, _ total: FileTally, _ unreferenced: FileTally) -> [String] {
            [name, "\(total.files)", AssetSweepPolicy.text(bytes: total.bytes),
             "\(unreferenced.files)", AssetSweepPolicy.text(bytes: unreferenced.bytes)]
        }
        return TextTable.render(header: ["area", "files", "size", "unreferenced", "unreferenced_size"],
                                rows: usage.areas.map { row($0.name, $0.total, $0.unreferenced) }
                                    + [row("total", usage.total, usage.unreferenced)])
    }

    /// `removed 3 unreferenced files (1.2 MB), evicted 2 from the cache (40 MB); kept 1 younger than 1h`.
    public static func sweep(_ report: AssetSweepReport, policy: AssetSweepPolicy, dryRun: Bool) -> String {
        var line = "\(dryRun ? "would remove" : "removed") \(report.removed.files) unreferenced file\(report.removed.files == 1 ? "" : "s") "
            + "(\(AssetSweepPolicy.text(bytes: report.removed.bytes)))"
        if policy.cacheMax != nil {
            line += ", \(dryRun ? "would evict" : "evicted") \(report.evicted.files) from the cache "
                + "(\(AssetSweepPolicy.text(bytes: report.evicted.bytes)))"
        }
        line += "; kept \(report.keptYoung.files) younger than \(RetentionPolicy.text(policy.grace))"
        if report.failed.files > 0 {
            line += "; could not remove \(report.failed.files) (\(AssetSweepPolicy.text(bytes: report.failed.bytes)))"
            if let first = report.failures.first { line += ", first \(first.path): \(first.reason)" }
        }
        return line
    }

    /// `removed 3 jobs, 1 production (with 12 jobs), 0 worker rows (kept: finished 30d, dead 90d, workers 1d)`.
    public static func prune(_ report: PruneReport, policy: RetentionPolicy, dryRun: Bool) -> String {
        func count(_ n: Int, _ noun: String) -> String { "\(n) \(noun)\(n == 1 ? "" : "s")" }
        return "\(dryRun ? "would remove" : "removed") \(count(report.jobs, "job")), \(count(report.productions, "production")) "
            + "(with \(count(report.productionJobs, "job"))), \(count(report.workers, "worker row")) "
            + "(kept: finished \(RetentionPolicy.text(policy.finished)), dead \(RetentionPolicy.text(policy.dead)), "
            + "workers \(RetentionPolicy.text(policy.workers)))"
    }
}
