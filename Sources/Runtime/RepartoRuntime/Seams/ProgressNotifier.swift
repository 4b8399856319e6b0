import Foundation
import Postgres
import Synchronization

/// Sends a worker's progress notifications (`NOTIFY reparto_progress`, which wakes the
/// coordinator and clients following productions) after its completions commit, at most once
/// per ``interval``: the first at once, those within the window together at its end.
///
/// A notification is a transaction of its own (after the completion's commit, so the
/// notification lock is not held through that commit's flush), and notifying gives it a
/// transaction id and a commit record. One per completion batch was a round trip and a WAL flush
/// per handful of jobs at a steady rate; the coordinator looks at most once per 50 ms anyway
/// (``Coordinator``), and followers ten times a second. The notification's commit does not wait
/// for the WAL flush: one lost in a crash delays a follower until its next poll.
final class ProgressNotifier: Sendable {
    private let postgres: PostgresClient
    private let window: Mutex<NotificationWindow>
    private let clock = ContinuousClock()

    init(postgres: PostgresClient, interval: Duration = .milliseconds(50)) {
        self.postgres = postgres
        window = Mutex(NotificationWindow(interval: interval))
    }

    /// Notifies for `productions` now, or at the end of the current window; returns without
    /// waiting for either. Awaited, the notification's round trip held up the completion batch
    /// that sent it, and every batch behind that one, once per window.
    func notify(_ productions: Set<String>) {
        let now = clock.now
        switch window.withLock({ $0.add(productions, now: now) }) {
        case .none:
            break
        case .now(let batch):
            Task { [self] in await send(batch) }
        case .at(let instant):
            Task { [self] in
                try? await Task.sleep(until: instant, clock: clock)
                let batch = window.withLock { $0.flush(now: clock.now) }
                await send(batch)
            }
        }
    }

    private func send(_ productions: Set<String>) async {
        guard !productions.isEmpty else { return }
        // A notification lost to a connection failure only delays a follower until its next poll
        // and the coordinator until its next tick.
        try? await postgres.withConnection { try JobStore.notifyProgressAsynchronously(productions, on: $0) }
    }
}

/// The coalescing of ``ProgressNotifier``, as a value: what to notify, and when.
struct NotificationWindow: Sendable {
    enum Decision: Equatable, Sendable {
        /// Already due at a window's end: nothing more to do.
        case none
        /// Notify these now (the window had passed).
        case now(Set<String>)
        /// Notify at this instant (``flush(now:)``), together with what arrives until then.
        case at(ContinuousClock.Instant)
    }

    let interval: Duration
    private var pending: Set<String> = []
    private var last: ContinuousClock.Instant?
    private var scheduled = false

    init(interval: Duration) {
        self.interval = interval
    }

    mutating func add(_ productions: Set<String>, now: ContinuousClock.Instant) -> Decision {
        guard !productions.isEmpty else { return .none }
        pending.formUnion(productions)
        if scheduled { return .none }
        if let last, now < last + interval {
            scheduled = true
            return .at(last + interval)
        }
        return .now(flush(now: now))
    }

    /// What is pending, now sent: the window starts again from `now`.
    mutating func flush(now: ContinuousClock.Instant) -> Set<String> {
        defer { pending = [] }
        last = now
        scheduled = false
        return pending
    }
}
