import Foundation
import Logging
import Postgres
import Threading

/// The coordinator leader's schedule step: fires the due schedules (``JobStore/fireDueSchedules(limit:on:)``)
/// and says how long the coordinator's loop may wait before the soonest next tick.
///
/// Exactly once per tick: only the leader calls it, and even two callers at once could not enqueue
/// a tick twice (row locks with SKIP LOCKED, then the tick's idempotency key). Checks at least
/// once a `tick`, and sooner when a schedule's next tick comes earlier.
struct ScheduleTicker {
    let tick: Double
    private var nextCheck = ContinuousClock.now
    /// After a failed pass other than a lost connection (say, a database not yet migrated to
    /// schedules), the next one waits longer, up to a minute, instead of logging every tick.
    private var failures: Backoff

    init(tick: Double) {
        self.tick = tick
        failures = Backoff(initial: max(tick, 0.1), maximum: max(tick, 60))
    }

    @available(*, noasync)
    mutating func fireDue(on connection: PostgresConnection, logger: Logger) throws {
        let now = ContinuousClock.now
        guard now >= nextCheck else { return }
        // At the latest a tick from now, also when this pass fails.
        nextCheck = now + .seconds(tick)
        let firing: ScheduleFiring
        do {
            firing = try JobStore.fireDueSchedules(on: connection)
            failures.reset()
        } catch let error as PostgresError where !error.isConnectionLost {
            let delay = failures.next()
            nextCheck = now + .seconds(delay)
            logger.error("firing schedules failed", metadata: ["error": "\(error)", "retry_in_seconds": "\(delay)"])
            return
        }
        for fired in firing.fired {
            var metadata: Logger.Metadata = [
                "schedule": "\(fired.name)", "tick": "\(CivilTime.iso8601(fired.tick))", "job_id": "\(fired.jobID.uuidString.lowercased())"]
            if fired.missed > 0 {
                metadata["missed_ticks"] = "\(fired.missed)\(fired.missedAtLeast ? "+" : "")"
                logger.warning("schedule ran once for ticks missed while no coordinator led; skipped the others", metadata: metadata)
            } else {
                logger.debug("schedule fired", metadata: metadata)
            }
        }
        for failure in firing.failed {
            logger.error("firing a schedule failed", metadata: ["schedule": "\(failure.name)", "error": "\(failure.error)"])
        }
        if firing.moreDue {
            nextCheck = now
        } else if firing.failed.isEmpty, let seconds = try JobStore.secondsUntilNextSchedule(on: connection) {
            // A little after the tick (the database's clock decides when a row is due); a row due
            // now that this pass did not take is locked by someone else: look again shortly.
            nextCheck = min(nextCheck, now + .seconds(seconds > 0 ? seconds + 0.002 : 0.05))
        }
    }

    /// How long the loop may wait for notifications: until the next check, at most `tick`.
    func waitTimeout() -> Double {
        min(tick, max(0, (nextCheck - ContinuousClock.now) / .seconds(1)))
    }
}
