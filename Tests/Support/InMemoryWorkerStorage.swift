import Foundation
import Postgres
import RepartoRuntime
import Synchronization

/// A ``WorkerStorage`` in memory: a jobs table that keeps ``JobLifecycle``'s rules (claims,
/// fencing, heartbeats), so a `Worker` runs in unit tests without PostgreSQL. Job effects (which
/// need a database connection) are not run.
public final class InMemoryWorkerStorage: WorkerStorage {
    /// One job row.
    public struct Row: Sendable, Equatable {
        public var id: UUID
        public var kind: String
        public var parameters: Data
        public var state: JobState = .queued
        public var attempts = 0
        public var maxAttempts: Int
        public var workerID: String?
        public var cancelRequested = false
        /// Attempts in a row that ended with their worker gone (a suspect runs alone).
        public var crashes = 0
        /// Whether `run_after` has passed.
        public var due = true
        public var publishPending = true
        public var result: Data?
        public var lastError: String?
        public var retryDelay: Double?
    }

    private struct State {
        var rows: [UUID: Row] = [:]
        var alive: Set<String> = []
        var heartbeats: [String: Int] = [:]
        var stopped: [String: (succeeded: Int, failed: Int)] = [:]
        var held: [String: [String: Int]] = [:]
        var claimsHeld = false
        var claimWaiters: [CheckedContinuation<Void, Never>] = []
        var controlledFailures = 0
        var controlledCalls: [[UUID]] = []
        var claimCalls: [[UUID]] = []
        var arrivalClaims = 0
        var arrivalFailures = 0
        var threadCompletions: [[UUID]] = []
        var threadCompletionFailures = 0
        var completeCalls: [[UUID]] = []
        /// While true, commits of outcomes wait (at most 20 s) before they apply.
        var commitsHeld = false
        /// For each claim made alone: the other jobs its worker's rows then showed running.
        var besideAloneClaims: [Set<UUID>] = []
    }

    private let state = Mutex(State())

    public init() {}

    /// Inserts a queued job; returns its id.
    @discardableResult
    public func insert(kind: String, parameters: String = "{}", maxAttempts: Int = 3, id: UUID = UUID()) -> UUID {
        state.withLock { $0.rows[id] = Row(id: id, kind: kind, parameters: Data(parameters.utf8), maxAttempts: maxAttempts) }
        return id
    }

    /// Changes a row (a test setting up a state).
    public func update(_ id: UUID, _ change: (inout Row) -> Void) {
        state.withLock { state in
            if var row = state.rows[id] {
                change(&row)
                state.rows[id] = row
            }
        }
    }

    public func row(_ id: UUID) -> Row? { state.withLock { $0.rows[id] } }

    /// The final counts the worker recorded when it stopped, if it did.
    public func stopped(_ workerID: String) -> (succeeded: Int, failed: Int)? { state.withLock { $0.stopped[workerID] } }

    /// How many heartbeats the worker sent.
    public func heartbeatCount(_ workerID: String) -> Int { state.withLock { $0.heartbeats[workerID, default: 0] } }

    /// The held deliveries per routing key the worker reported with its last heartbeat, if any.
    public func held(_ workerID: String) -> [String: Int]? { state.withLock { $0.held[workerID] } }

    /// Holds every claim until ``releaseClaims()``: deliveries meanwhile pile up for one batch.
    public func holdClaims() { state.withLock { $0.claimsHeld = true } }

    public func releaseClaims() {
        let waiters = state.withLock { state in
            state.claimsHeld = false
            defer { state.claimWaiters.removeAll() }
            return state.claimWaiters
        }
        waiters.forEach { $0.resume() }
    }

    /// The next `count` calls of ``claimControlled(_:workerID:)`` fail as if the connection was lost.
    public func failControlledClaims(_ count: Int) { state.withLock { $0.controlledFailures = count } }

    /// The ids of each first claim step so far (``claim(_:workerID:)``, ``claimOnArrival(_:workerID:)``).
    public var claimCalls: [[UUID]] { state.withLock { $0.claimCalls } }

    /// The ids of each ``claimControlled(_:workerID:)`` call so far.
    public var controlledClaimCalls: [[UUID]] { state.withLock { $0.controlledCalls } }

    public func claim(_ ids: [UUID], workerID: String) async throws -> (claimed: [ClaimedJob], rest: [UUID]) {
        state.withLock { $0.claimCalls.append(ids) }
        await withCheckedContinuation { (waiter: CheckedContinuation<Void, Never>) in
            let held = state.withLock { state in
                if state.claimsHeld { state.claimWaiters.append(waiter) }
                return state.claimsHeld
            }
            if !held { waiter.resume() }
        }
        let claimed = state.withLock { state in
            ids.compactMap { id in Self.claimOne(id, workerID: workerID, suspects: false, in: &state) }
        }
        let taken = Set(claimed.map(\.id))
        return (claimed, ids.filter { !taken.contains($0) })
    }

    /// Claims like ``claim(_:workerID:)``, at once; nil while claims are held (``holdClaims()``).
    public func claimOnArrival(_ ids: [UUID], workerID: String) throws -> (claimed: [ClaimedJob], rest: [UUID])? {
        try state.withLock { state in
            guard !state.claimsHeld else { return nil }
            if state.arrivalFailures > 0 {
                state.arrivalFailures -= 1
                throw PostgresError(.connection, message: "connection lost (injected)")
            }
            state.claimCalls.append(ids)
            state.arrivalClaims += 1
            let claimed = ids.compactMap { id in Self.claimOne(id, workerID: workerID, suspects: false, in: &state) }
            let taken = Set(claimed.map(\.id))
            return (claimed, ids.filter { !taken.contains($0) })
        }
    }

    /// The next `count` calls of ``claimOnArrival(_:workerID:)`` fail as if the connection was lost.
    public func failArrivalClaims(_ count: Int) { state.withLock { $0.arrivalFailures = count } }

    /// How many claims ``claimOnArrival(_:workerID:)`` made.
    public var arrivalClaims: Int { state.withLock { $0.arrivalClaims } }

    /// No limits or pauses here: of what the first step left, only suspects can be claimed, `alone`.
    public func claimControlled(_ ids: [UUID], workerID: String, alone: Bool) async throws -> (claimed: [ClaimedJob], suspects: [UUID]) {
        let fail = state.withLock { state in
            state.controlledCalls.append(ids)
            defer { state.controlledFailures = max(0, state.controlledFailures - 1) }
            return state.controlledFailures > 0
        }
        if fail { throw PostgresError(.connection, message: "connection lost (injected)") }
        return state.withLock { state in
            if alone {
                state.besideAloneClaims.append(Set(state.rows.filter { id, row in
                    row.state == .running && row.workerID == workerID && !ids.contains(id)
                }.keys))
            }
            guard alone else {
                return ([], ids.filter { id in
                    state.rows[id].map { Self.claimable($0, in: state) && JobLifecycle.runsAlone(crashes: $0.crashes) } ?? false
                })
            }
            return (ids.compactMap { Self.claimOne($0, workerID: workerID, suspects: true, in: &state) }, [])
        }
    }

    private static func claimable(_ row: Row, in state: State) -> Bool {
        JobLifecycle.canClaim(row.state, due: row.due, ownerAlive: row.workerID.map(state.alive.contains) ?? false)
    }

    /// Claims a waiting job (a suspect only if `suspects`), as the claim statements do.
    private static func claimOne(_ id: UUID, workerID: String, suspects: Bool, in state: inout State) -> ClaimedJob? {
        guard var row = state.rows[id], claimable(row, in: state),
              suspects || !JobLifecycle.runsAlone(crashes: row.crashes) else { return nil }
        row.state = .running
        row.attempts += 1
        row.workerID = workerID
        state.rows[id] = row
        return ClaimedJob(id: id, kind: row.kind, parameters: row.parameters, attempt: row.attempts,
                          maxAttempts: row.maxAttempts)
    }

    /// The next `count` calls of ``completeOnThread(_:)`` fail as if the connection was lost.
    public func failThreadCompletions(_ count: Int) { state.withLock { $0.threadCompletionFailures = count } }

    /// The ids of each ``completeOnThread(_:)`` call that committed.
    public var threadCompletions: [[UUID]] { state.withLock { $0.threadCompletions } }

    /// The ids of each ``complete(_:)`` call so far.
    public var completeCalls: [[UUID]] { state.withLock { $0.completeCalls } }

    /// Holds (`true`) or lets go the commits of outcomes (``complete(_:)``, ``completeOnThread(_:)``).
    public func holdCommits(_ held: Bool) { state.withLock { $0.commitsHeld = held } }

    /// For each claim made alone, the other jobs its worker's rows showed running then (what
    /// the rescue would count as running beside it).
    public var besideAloneClaims: [Set<UUID>] { state.withLock { $0.besideAloneClaims } }

    public func completeOnThread(_ outcomes: [JobOutcome]) throws -> [JobOutcome]? {
        let deadline = ContinuousClock.now + .seconds(20)
        while state.withLock({ $0.commitsHeld }), ContinuousClock.now < deadline { Thread.sleep(forTimeInterval: 0.002) }
        return try state.withLock { state in
            if state.threadCompletionFailures > 0 {
                state.threadCompletionFailures -= 1
                throw PostgresError(.connection, message: "connection lost (injected)")
            }
            state.threadCompletions.append(outcomes.map(\.id))
            return Self.apply(outcomes, in: &state)
        }
    }

    public func complete(_ outcomes: [JobOutcome]) async throws -> [JobOutcome] {
        let deadline = ContinuousClock.now + .seconds(20)
        while state.withLock({ $0.commitsHeld }), ContinuousClock.now < deadline { try? await Task.sleep(for: .milliseconds(2)) }
        return state.withLock { state in
            state.completeCalls.append(outcomes.map(\.id))
            return Self.apply(outcomes, in: &state)
        }
    }

    /// Applies the outcomes whose job still runs their attempt (``JobLifecycle``'s fencing).
    private static func apply(_ outcomes: [JobOutcome], in state: inout State) -> [JobOutcome] {
        outcomes.filter { outcome in
            guard var row = state.rows[outcome.id],
                  let outcomeState = JobState(rawValue: outcome.state.rawValue),
                  let completion = JobLifecycle.complete(state: row.state, attempts: row.attempts, outcome: outcomeState,
                                                         attempt: outcome.attempt, rescheduled: outcome.isRescheduled)
            else { return false }
            row.state = completion.state
            row.publishPending = completion.republish
            if !completion.countsAttempt { row.attempts -= 1 }
            if !completion.keepsWorker { row.workerID = nil }
            if outcomeState != .queued { row.crashes = 0 }  // a hand-back ends no attempt
            row.result = outcome.result ?? row.result
            row.lastError = outcome.error ?? row.lastError
            row.retryDelay = outcome.retryDelay
            state.rows[outcome.id] = row
            return true
        }
    }

    public func heartbeat(_ worker: WorkerIdentity, succeeded: Int, failed: Int, inFlight: Int,
                          local: [UUID], held: [String: Int]) throws -> (cancel: [UUID], lost: [UUID]) {
        state.withLock { state in
            state.alive.insert(worker.id)
            state.heartbeats[worker.id, default: 0] += 1
            state.held[worker.id] = held
            state.stopped[worker.id] = nil
            var cancel: [UUID] = [], lost: [UUID] = []
            for row in state.rows.values {
                if JobLifecycle.ownership(state: row.state, workerID: row.workerID, me: worker.id,
                                          cancelRequested: row.cancelRequested) == .cancel {
                    cancel.append(row.id)
                }
            }
            for id in local {
                guard let row = state.rows[id] else { continue }
                if JobLifecycle.ownership(state: row.state, workerID: row.workerID, me: worker.id,
                                          cancelRequested: row.cancelRequested) == .lost {
                    lost.append(id)
                }
            }
            return (cancel, lost)
        }
    }

    public func markStopped(workerID: String, succeeded: Int, failed: Int) async throws {
        state.withLock { state in
            state.alive.remove(workerID)
            state.stopped[workerID] = (succeeded, failed)
        }
    }
}
