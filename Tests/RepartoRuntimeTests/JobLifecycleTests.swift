@testable import RepartoRuntime
import Foundation
import Testing

/// The lifecycle rules of `JobLifecycle`, without a server.
@Suite(.timeLimit(.minutes(1))) struct JobLifecycleTests {
    @Test func waitingActiveAndRetryableStatesAreTheDocumentedOnes() {
        #expect(JobLifecycle.waiting == [.queued, .failed])
        #expect(JobLifecycle.active == [.queued, .running, .failed])
        #expect(JobLifecycle.retryable == [.dead, .cancelled])
        #expect(JobLifecycle.unsuccessful == [.dead, .cancelled, .failed])
    }

    @Test func activeStatesAreExactlyTheNonFinalOnes() {
        for state in JobState.allCases {
            #expect(JobLifecycle.active.contains(state) == !state.isFinal, "\(state)")
        }
    }

    @Test func retryableStatesAreFinalButNotSucceeded() {
        #expect(JobLifecycle.retryable.allSatisfy { $0.isFinal })
        #expect(!JobLifecycle.retryable.contains(.succeeded))
    }

    @Test func sqlListQuotesTheRawNamesInOrder() {
        #expect(JobLifecycle.sqlList(JobLifecycle.waiting) == "('queued', 'failed')")
        // The partial index jobs_active_stage (the runtime line's 0003) has this predicate, in this order.
        #expect(JobLifecycle.sqlList(JobLifecycle.active) == "('queued', 'running', 'failed')")
        #expect(JobLifecycle.sqlList([]) == "()")
    }

    @Test func activeListMatchesTheMigrationsPartialIndex() throws {
        let migration = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("migrations/0003_active_jobs_index.sql")
        let text = try String(contentsOf: migration, encoding: .utf8)
        #expect(text.contains("WHERE state IN \(JobLifecycle.sqlList(JobLifecycle.active))"))
    }

    // MARK: claim

    @Test(arguments: [JobState.queued, .failed])
    func aDueWaitingJobIsClaimed(_ state: JobState) {
        #expect(JobLifecycle.canClaim(state, due: true, ownerAlive: false))
        #expect(JobLifecycle.canClaim(state, due: true, ownerAlive: true))
    }

    @Test(arguments: [JobState.queued, .failed])
    func aWaitingJobThatIsNotDueIsNotClaimed(_ state: JobState) {
        #expect(!JobLifecycle.canClaim(state, due: false, ownerAlive: false))
    }

    @Test func aRunningJobIsNeverClaimedEvenWhenItsWorkerIsGone() {
        // Only the rescue ends a dead worker's attempt, so the crash is counted.
        #expect(!JobLifecycle.canClaim(.running, due: true, ownerAlive: false))
        #expect(!JobLifecycle.canClaim(.running, due: true, ownerAlive: true))
    }

    @Test(arguments: [JobState.succeeded, .dead, .cancelled])
    func aFinishedJobIsNeverClaimed(_ state: JobState) {
        #expect(!JobLifecycle.canClaim(state, due: true, ownerAlive: false))
    }

    // MARK: completion and fencing

    @Test func aSuccessOfTheCurrentAttemptApplies() {
        let completion = JobLifecycle.complete(state: .running, attempts: 2, outcome: .succeeded, attempt: 2)
        #expect(completion == .init(state: .succeeded, republish: false, countsAttempt: true, keepsWorker: true))
    }

    @Test func aFailureIsRepublishedForItsRetry() {
        let completion = JobLifecycle.complete(state: .running, attempts: 1, outcome: .failed, attempt: 1)
        #expect(completion?.state == .failed)
        #expect(completion?.republish == true)
    }

    @Test(arguments: [JobState.dead, .cancelled])
    func deadAndCancelledOutcomesAreNotRepublished(_ outcome: JobState) {
        let completion = JobLifecycle.complete(state: .running, attempts: 1, outcome: outcome, attempt: 1)
        #expect(completion?.state == outcome)
        #expect(completion?.republish == false)
    }

    @Test func aHandedBackJobIsQueuedWithoutCountingTheAttemptOrKeepingItsWorker() {
        let completion = JobLifecycle.complete(state: .running, attempts: 3, outcome: .queued, attempt: 3)
        #expect(completion == .init(state: .queued, republish: false, countsAttempt: false, keepsWorker: false))
    }

    @Test func anOldAttemptIsFencedOut() {
        #expect(JobLifecycle.complete(state: .running, attempts: 3, outcome: .succeeded, attempt: 2) == nil)
    }

    @Test(arguments: [JobState.queued, .failed, .succeeded, .dead, .cancelled])
    func aJobThatIsNoLongerRunningIsFencedOut(_ state: JobState) {
        #expect(JobLifecycle.complete(state: state, attempts: 1, outcome: .succeeded, attempt: 1) == nil)
    }

    // MARK: rescue

    @Test func aRescuedJobWithAttemptsLeftFailsAndIsRepublished() {
        #expect(JobLifecycle.rescue(cancelRequested: false, attempts: 1, maxAttempts: 3) == .init(state: .failed, republish: true))
    }

    @Test func aRescuedJobWithItsAttemptsSpentIsDead() {
        #expect(JobLifecycle.rescue(cancelRequested: false, attempts: 3, maxAttempts: 3) == .init(state: .dead, republish: false))
    }

    @Test func aRescuedJobWhoseCancelWasRequestedIsCancelledEvenWithAttemptsLeft() {
        #expect(JobLifecycle.rescue(cancelRequested: true, attempts: 1, maxAttempts: 5) == .init(state: .cancelled, republish: false))
        #expect(JobLifecycle.rescue(cancelRequested: true, attempts: 5, maxAttempts: 5).state == .cancelled)
    }

    @Test func aJobWhoseWorkerDiedAsOftenAsItsCrashLimitIsDeadWithAttemptsLeft() {
        #expect(JobLifecycle.rescue(cancelRequested: false, attempts: 1, maxAttempts: 25, loneCrashes: 0, crashLimit: 2).state == .failed)
        #expect(JobLifecycle.rescue(cancelRequested: false, attempts: 2, maxAttempts: 25, loneCrashes: 1, crashLimit: 2)
                == .init(state: .dead, republish: false))
        #expect(JobLifecycle.rescue(cancelRequested: false, attempts: 2, maxAttempts: 25, loneCrashes: 1, crashLimit: 3).state == .failed)
        #expect(JobLifecycle.rescue(cancelRequested: false, attempts: 1, maxAttempts: 25, loneCrashes: 0, crashLimit: 1).state == .dead)
    }

    /// A crash beside other jobs does not count towards the limit: the job is a suspect, runs
    /// alone next, and only its deaths alone can make it dead.
    @Test func aCrashBesideOtherJobsOnlyMakesASuspect() {
        #expect(JobLifecycle.rescue(cancelRequested: false, attempts: 1, maxAttempts: 25, loneCrashes: 0, ranAlone: false, crashLimit: 1)
                == .init(state: .failed, republish: true))
        #expect(JobLifecycle.rescue(cancelRequested: false, attempts: 2, maxAttempts: 25, loneCrashes: 1, ranAlone: false, crashLimit: 2).state == .failed)
        #expect(JobLifecycle.rescue(cancelRequested: false, attempts: 2, maxAttempts: 2, loneCrashes: 0, ranAlone: false).state == .dead,
                "its attempts are spent all the same")
        #expect(JobLifecycle.runsAlone(crashes: 1) && !JobLifecycle.runsAlone(crashes: 0))
    }

    @Test func aCancelRequestedJobIsCancelledRatherThanDeadAtItsCrashLimit() {
        #expect(JobLifecycle.rescue(cancelRequested: true, attempts: 2, maxAttempts: 25, loneCrashes: 1, crashLimit: 2).state == .cancelled)
    }

    // MARK: cancel and retry

    @Test(arguments: [JobState.queued, .failed])
    func cancellingAWaitingJobCancelsItAtOnce(_ state: JobState) {
        #expect(JobLifecycle.cancel(state) == .cancelNow)
    }

    @Test func cancellingARunningJobOnlyRequestsIt() {
        #expect(JobLifecycle.cancel(.running) == .requestCancel)
    }

    @Test(arguments: [JobState.succeeded, .dead, .cancelled])
    func cancellingAFinishedJobChangesNothing(_ state: JobState) {
        #expect(JobLifecycle.cancel(state) == .alreadyFinished)
    }

    @Test func onlyDeadOrCancelledJobsAreRetried() {
        for state in JobState.allCases {
            #expect((JobLifecycle.retry(state) == .queued) == [.dead, .cancelled].contains(state), "\(state)")
        }
    }

    // MARK: productions and heartbeats

    @Test func aStageIsFinishedWhenNoJobHasWorkAhead() {
        #expect(JobLifecycle.isStageFinished([JobState.succeeded, .dead, .cancelled]))
        #expect(JobLifecycle.isStageFinished([JobState]()))
        #expect(!JobLifecycle.isStageFinished([JobState.succeeded, .failed]))
        #expect(!JobLifecycle.isStageFinished([JobState.running]))
    }

    @Test func aProductionWithDeadJobsFinishesWithFailures() {
        #expect(JobLifecycle.finishesWithFailures(dead: 1))
        #expect(!JobLifecycle.finishesWithFailures(dead: 0))
    }

    @Test func ownershipOfARunningJobOfThisWorker() {
        #expect(JobLifecycle.ownership(state: .running, workerID: "w1", me: "w1", cancelRequested: false) == .keep)
        #expect(JobLifecycle.ownership(state: .running, workerID: "w1", me: "w1", cancelRequested: true) == .cancel)
    }

    @Test func aJobRunningElsewhereOrFinishedIsLost() {
        #expect(JobLifecycle.ownership(state: .running, workerID: "w2", me: "w1", cancelRequested: false) == .lost)
        #expect(JobLifecycle.ownership(state: .running, workerID: nil, me: "w1", cancelRequested: false) == .lost)
        #expect(JobLifecycle.ownership(state: .failed, workerID: "w1", me: "w1", cancelRequested: false) == .lost)
        #expect(JobLifecycle.ownership(state: .succeeded, workerID: "w1", me: "w1", cancelRequested: true) == .lost)
    }
}
