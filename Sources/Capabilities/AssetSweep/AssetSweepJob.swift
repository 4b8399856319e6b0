import Assets
import Foundation
import RepartoRuntime
import RepartoConfiguration
import Postgres
import Threading

/// The `assets.sweep` job kind: one ``AssetSweeper`` pass on a worker that mounts the asset
/// volume, with the policy of that worker's configuration (`REPARTO_ASSET_GRACE`,
/// `REPARTO_CACHE_MAX`). The coordinator schedules it hourly (``scheduleName``).
public struct AssetSweepJob: JobParameters {
    public static let kind = "assets.sweep"
    /// The schedule `reparto coordinator` keeps (every `REPARTO_ASSET_SWEEP_EVERY`, default 1h).
    public static let scheduleName = "reparto:assets-sweep"
    public static let everyVariable = "REPARTO_ASSET_SWEEP_EVERY"

    /// Count only.
    public var dryRun: Bool

    public init(dryRun: Bool = false) {
        self.dryRun = dryRun
    }

    /// Registers the kind on the volume at `assetsRoot`, keeping what `references` name (every
    /// production type's); it needs `postgres` (else every job fails with that reason).
    public static func register(in registry: JobRegistry, assetsRoot root: URL, postgres: PostgresClient?,
                                configuration: ConfigurationValues, references: [AssetReferences]) {
        let configured = Result { () throws(RetentionError) -> AssetSweepPolicy in
            try AssetSweepPolicy(configuration: configuration)
        }
        registry.register(AssetSweepJob.self, timeout: 3600) { parameters, context in
            guard let postgres else { throw JobError.permanent("assets.sweep: this worker has no database connection") }
            let policy: AssetSweepPolicy
            do { policy = try configured.get() } catch { throw JobError.permanent("assets.sweep: \(error)") }
            let store = try await BlockingWork.run { try AssetStore(root: root) }
            let report = try await AssetSweeper(store: store, postgres: postgres, policy: policy, references: references)
                .sweep(dryRun: parameters.dryRun)
            context.logger.info("swept the asset volume", metadata: [
                "removed_files": "\(report.removed.files)", "removed_bytes": "\(report.removed.bytes)",
                "evicted_files": "\(report.evicted.files)", "kept_young": "\(report.keptYoung.files)",
                "cache_bytes": "\(report.cacheBytes)",
            ])
            if let first = report.failures.first {
                context.logger.warning("the asset sweep could not remove some files; it removed the others", metadata: [
                    "failed_files": "\(report.failed.files)", "failed_bytes": "\(report.failed.bytes)",
                    "first_path": "\(first.path)", "first_reason": "\(first.reason)",
                ])
            }
            return report
        }
    }

    /// The cadence `REPARTO_ASSET_SWEEP_EVERY` asks for: `30m`, `1h` (nil: the standard 1h);
    /// nil for `never`.
    /// - Throws: ``ScheduleError`` for a value that is not an interval.
    public static func cadence(every text: String?) throws(ScheduleError) -> ScheduleCadence? {
        if text?.trimmingCharacters(in: .whitespaces).lowercased() == "never" { return nil }
        return try ScheduleCadence.every(text ?? "1h")
    }

    /// Keeps the sweep scheduled (``scheduleName``) at `cadence`, or deletes the schedule for nil.
    /// An existing schedule with the same cadence is left alone, paused or not.
    public static func keepScheduled(_ cadence: ScheduleCadence?, client: JobClient) async throws {
        let existing = try await client.schedules().first { $0.name == scheduleName }
        guard let cadence else {
            if existing != nil { try await client.deleteSchedule(named: scheduleName) }
            return
        }
        guard existing?.definition.cadence != cadence else { return }
        try await client.addSchedule(ScheduleDefinition(name: scheduleName, cadence: cadence, AssetSweepJob(), maxAttempts: 1))
    }
}
