import Foundation
@testable import RepartoRuntime
import Postgres
import RepartoTestSupport
import Testing

/// The SQL of `JobStore` agrees with its Swift mirror, `JobLifecycle`: each statement is run on
/// one job per case and its effect compared with the mirror's decision.
@Suite("the job lifecycle's SQL agrees with JobLifecycle", .timeLimit(.minutes(2)))
struct LifecycleAgreementTests {
    /// A job set to `state` (running on a worker that never heartbeated, when running).
    private func job(in cluster: TestCluster, state: JobState, attempts: Int = 1, maxAttempts: Int = 3,
                     cancelRequested: Bool = false, crashes: Int = 0, loneCrashes: Int = 0,
                     worker: String = "gone") async throws -> UUID {
        let id = try await cluster.client.enqueue(NoopJob(), options: JobOptions(maxAttempts: maxAttempts))
        _ = try await cluster.postgres.query("""
            UPDATE jobs SET state = $2, attempts = $3, cancel_requested = $4,
                worker_id = CASE WHEN $2 = 'running' THEN $7 END, crashes = $5, lone_crashes = $6
            WHERE id = $1
            """, [id, state.rawValue, attempts, cancelRequested, Int16(crashes), Int16(loneCrashes), worker])
        return id
    }

    private func state(of id: UUID, in cluster: TestCluster) async throws -> (JobState?, Bool?, Bool?) {
        let row = try await cluster.postgres.query(
            "SELECT state, publish_pending, cancel_requested FROM jobs WHERE id = $1", [id]).first
        return (row?.string("state").flatMap(JobState.init(rawValue:)), row?.bool("publish_pending"), row?.bool("cancel_requested"))
    }

    /// Each case's job runs on a worker of its own that never heartbeated, alone or beside another job.
    @Test func rescueAgrees() async throws {
        let cluster = try await TestCluster.make()
        for cancelRequested in [false, true] {
            for attempts in [1, 3] {
                for loneCrashes in [0, 1] {
                    for ranAlone in [true, false] {
                        let worker = "gone-\(UUID())"
                        let id = try await job(in: cluster, state: .running, attempts: attempts, maxAttempts: 3,
                                               cancelRequested: cancelRequested, crashes: loneCrashes,
                                               loneCrashes: loneCrashes, worker: worker)
                        if !ranAlone { _ = try await job(in: cluster, state: .running, worker: worker) }
                        _ = try await cluster.postgres.withTransaction { try JobStore.rescueOrphans(on: $0) }
                        let expected = JobLifecycle.rescue(cancelRequested: cancelRequested, attempts: attempts, maxAttempts: 3,
                                                           loneCrashes: loneCrashes, ranAlone: ranAlone,
                                                           crashLimit: JobLifecycle.defaultCrashLimit)
                        let (state, publish, _) = try await state(of: id, in: cluster)
                        let context = "cancel requested \(cancelRequested), attempts \(attempts), lone crashes \(loneCrashes), alone \(ranAlone)"
                        #expect(state == expected.state, "\(context)")
                        #expect(publish == expected.republish, "\(context)")
                        let row = try #require(try await cluster.postgres.query("SELECT crashes, lone_crashes FROM jobs WHERE id = $1", [id]).first)
                        #expect(row.int("crashes") == loneCrashes + 1, "\(context)")
                        #expect(row.int("lone_crashes") == loneCrashes + (ranAlone ? 1 : 0), "\(context)")
                    }
                }
            }
        }
        await cluster.shutdown()
    }

    @Test func claimAgrees() async throws {
        let cluster = try await TestCluster.make()
        for state in JobState.allCases {
            let id = try await job(in: cluster, state: state)
            let claimed = try await cluster.postgres.withConnection { try JobStore.claim([id], workerID: "test-claimer", on: $0).claimed }
            #expect(claimed.count == (JobLifecycle.canClaim(state, due: true, ownerAlive: false) ? 1 : 0), "\(state)")
        }
        await cluster.shutdown()
    }

    @Test func completionFencingAgrees() async throws {
        let cluster = try await TestCluster.make()
        for state in JobState.allCases {
            for attempt in [1, 2] {
                // The last case: a "retry at" (queued with an instant to run again).
                for (outcome, runAt) in [(JobOutcome.State.succeeded, nil), (.failed, nil), (.queued, nil),
                                         (.queued, Date().addingTimeInterval(60))] {
                    let id = try await job(in: cluster, state: state, attempts: 2)
                    let applied = try await cluster.postgres.withTransaction {
                        try JobStore.complete([JobOutcome(id: id, attempt: attempt, state: outcome, retryDelay: 0, runAt: runAt)], on: $0)
                    }
                    let expected = JobLifecycle.complete(state: state, attempts: 2, outcome: JobState(rawValue: outcome.rawValue)!,
                                                         attempt: attempt, rescheduled: runAt != nil)
                    let (after, publish, _) = try await self.state(of: id, in: cluster)
                    let context = "\(state), attempt \(attempt), \(outcome)\(runAt == nil ? "" : " at an instant")"
                    #expect(applied.count == (expected == nil ? 0 : 1), "\(context)")
                    if let expected {
                        #expect(after == expected.state, "\(context)")
                        #expect(publish == expected.republish, "\(context)")
                    } else {
                        #expect(after == state, "\(context)")
                    }
                }
            }
        }
        await cluster.shutdown()
    }

    @Test func cancelAgrees() async throws {
        let cluster = try await TestCluster.make()
        for state in JobState.allCases {
            let id = try await job(in: cluster, state: state)
            let done = try await cluster.postgres.withTransaction { try JobStore.cancelJob(id, on: $0) }
            let (after, _, requested) = try await self.state(of: id, in: cluster)
            switch JobLifecycle.cancel(state) {
            case .cancelNow:
                #expect(done && after == .cancelled, "\(state)")
            case .requestCancel:
                #expect(done && after == .running && requested == true, "\(state)")
            case .alreadyFinished:
                #expect(!done && after == state, "\(state)")
            }
        }
        await cluster.shutdown()
    }

    @Test func retryAgrees() async throws {
        let cluster = try await TestCluster.make()
        for state in JobState.allCases {
            let id = try await job(in: cluster, state: state)
            let count = try await cluster.postgres.withTransaction { try JobStore.retry(jobs: [id], production: nil, on: $0) }
            let (after, _, _) = try await self.state(of: id, in: cluster)
            #expect(count == (JobLifecycle.retry(state) == nil ? 0 : 1), "\(state)")
            #expect(after == (JobLifecycle.retry(state) ?? state), "\(state)")
        }
        await cluster.shutdown()
    }

    /// The relay's "next due" ignores jobs held without a time (paused, or waiting for a limit
    /// slot, `run_after = 'infinity'`) instead of failing on them, and still sees timed ones.
    @Test func nextDueIgnoresHeldJobs() async throws {
        let cluster = try await TestCluster.make()
        let held = try await cluster.client.enqueue(NoopJob(), options: JobOptions())
        _ = try await cluster.postgres.query("UPDATE jobs SET publish_pending = true, run_after = 'infinity' WHERE id = $1", [held])
        _ = try await cluster.postgres.query("UPDATE jobs SET publish_pending = false WHERE id <> $1", [held])
        let none = try await cluster.postgres.withConnection { try JobStore.secondsUntilNextDue(on: $0) }
        #expect(none == nil)
        let timed = try await cluster.client.enqueue(NoopJob(), options: JobOptions())
        _ = try await cluster.postgres.query("UPDATE jobs SET publish_pending = true, run_after = now() + interval '60 seconds' WHERE id = $1", [timed])
        let due = try #require(try await cluster.postgres.withConnection { try JobStore.secondsUntilNextDue(on: $0) })
        #expect(due > 30 && due <= 60)
        await cluster.shutdown()
    }
}
