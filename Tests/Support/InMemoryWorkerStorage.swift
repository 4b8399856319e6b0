import Foundation
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
        var stopped: [String: (succeeded: Int, failed: Int)] = [:]
        var held: [String: [String: Int]] = [:]
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

    /// The held deliveries per routing key the worker reported with its last heartbeat, if any.
    public func held(_ workerID: String) -> [String: Int]? { state.withLock { $0.held[workerID] } }

    public func claim(_ ids: [UUID], workerID: String) async throws -> [ClaimedJob] {
        state.withLock { state in
            ids.compactMap { id -> ClaimedJob? in
                guard var row = state.rows[id],
                      JobLifecycle.canClaim(row.state, due: row.due,
                                            ownerAlive: row.workerID.map(state.alive.contains) ?? false) else { return nil }
                row.state = .running
                row.attempts += 1
                row.workerID = workerID
                state.rows[id] = row
                return ClaimedJob(id: id, kind: row.kind, parameters: row.parameters, attempt: row.attempts,
                                  maxAttempts: row.maxAttempts)
            }
        }
    }

    public func complete(_ outcomes: [JobOutcome]) async throws -> [JobOutcome] {
        state.withLock { state in
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
                row.result = outcome.result ?? row.result
                row.lastError = outcome.error ?? row.lastError
                row.retryDelay = outcome.retryDelay
                state.rows[outcome.id] = row
                return true
            }
        }
    }

    public func heartbeat(_ worker: WorkerIdentity, succeeded: Int, failed: Int, inFlight: Int,
                          local: [UUID], held: [String: Int]) async throws -> (cancel: [UUID], lost: [UUID]) {
        state.withLock { state in
            state.alive.insert(worker.id)
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
