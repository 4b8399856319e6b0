@testable import RepartoRuntime
import Foundation
import Testing

/// A deterministic generator (the policies here have no jitter, so its values do not matter).
private struct ZeroGenerator: RandomNumberGenerator {
    var state: UInt64 = 0x9E37_79B9_7F4A_7C15
    mutating func next() -> UInt64 {
        state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
        return state
    }
}

private struct Flaky: Error, RetryableError {
    var isRetryable: Bool
}

private func job(attempt: Int = 1, maxAttempts: Int = 3) -> ClaimedJob {
    ClaimedJob(id: UUID(), kind: "k", parameters: Data("{}".utf8), attempt: attempt, maxAttempts: maxAttempts,
               productionID: nil, stage: nil, timeout: nil)
}

private func threw(_ error: any Error, attempt: Int = 1, maxAttempts: Int = 3, cancelRequested: Bool = false,
                   draining: Bool = false, taskCancelled: Bool = false, timedOutAfter: Double? = nil) -> JobOutcome {
    var generator = ZeroGenerator()
    return AttemptDecision.threw(job(attempt: attempt, maxAttempts: maxAttempts), error: error, cancelRequested: cancelRequested,
                                 draining: draining, taskCancelled: taskCancelled, timedOutAfter: timedOutAfter,
                                 policy: RetryPolicy(base: 2, multiplier: 3, maximum: 100, jitter: 0), using: &generator)
}

/// The worker's decisions about one attempt, without a server.
@Suite(.timeLimit(.minutes(1))) struct AttemptDecisionTests {
    /// A job stopped by its deadline fails as timed out (retryable), not with the CancellationError
    /// its handler threw; a cancel or a drain at the same moment still wins.
    @Test func aJobStoppedByItsDeadlineFailsAsTimedOut() {
        let retried = threw(CancellationError(), attempt: 1, maxAttempts: 3, taskCancelled: true, timedOutAfter: 0.5)
        #expect(retried.state == .failed)
        #expect(retried.error == "timed out after 0.5 s")
        let last = threw(CancellationError(), attempt: 3, maxAttempts: 3, taskCancelled: true, timedOutAfter: 0.5)
        #expect(last.state == .dead)
        #expect(last.error == "timed out after 0.5 s (gave up after 3 attempts)")
        #expect(threw(CancellationError(), cancelRequested: true, taskCancelled: true, timedOutAfter: 0.5).state == .cancelled)
        #expect(threw(CancellationError(), draining: true, taskCancelled: true, timedOutAfter: 0.5).state == .queued)
    }

    @Test func aClaimedJobRunsWhenNothingStopsIt() {
        #expect(AttemptDecision.start(draining: false, cancelRequested: false) == .run)
    }

    @Test func aClaimedJobIsHandedBackWhileDraining() {
        #expect(AttemptDecision.start(draining: true, cancelRequested: false) == .handBack)
        // Draining wins over a cancel: the job goes back to the queue, where the cancel finds it.
        #expect(AttemptDecision.start(draining: true, cancelRequested: true) == .handBack)
    }

    @Test func aJobCancelledWhileWaitingForASlotNeverStarts() {
        #expect(AttemptDecision.start(draining: false, cancelRequested: true) == .cancel)
    }

    @Test func aReturnedResultSucceedsWithThatResult() {
        let claimed = job(attempt: 2)
        let outcome = AttemptDecision.succeeded(claimed, result: Data("42".utf8))
        #expect(outcome.state == .succeeded)
        #expect(outcome.result == Data("42".utf8))
        #expect(outcome.attempt == 2)
        #expect(outcome.id == claimed.id)
    }

    @Test func aRetryableErrorWithAttemptsLeftIsRetriedAfterThePolicysDelay() {
        let first = threw(Flaky(isRetryable: true), attempt: 1)
        #expect(first.state == .failed)
        #expect(first.retryDelay == 2)
        let second = threw(Flaky(isRetryable: true), attempt: 2)
        #expect(second.retryDelay == 6)
    }

    @Test func theLastAttemptsFailureIsDeadAndSaysItGaveUp() {
        let outcome = threw(Flaky(isRetryable: true), attempt: 3, maxAttempts: 3)
        #expect(outcome.state == .dead)
        #expect(outcome.retryDelay == nil)
        #expect(outcome.error?.hasSuffix("(gave up after 3 attempts)") == true)
    }

    @Test func aPermanentErrorIsDeadAtOnce() {
        let outcome = threw(JobError.permanent("no such file"), attempt: 1, maxAttempts: 5)
        #expect(outcome.state == .dead)
        #expect(outcome.error?.contains("gave up") == false)
    }

    @Test func badParametersAreNotRetried() {
        let error = DecodingError.dataCorrupted(.init(codingPath: [], debugDescription: "bad"))
        #expect(!AttemptDecision.isRetryable(error))
        #expect(threw(error, attempt: 1, maxAttempts: 5).state == .dead)
    }

    @Test func anUnknownErrorIsRetryable() {
        struct Other: Error {}
        #expect(AttemptDecision.isRetryable(Other()))
        #expect(AttemptDecision.isRetryable(JobError.timedOut(seconds: 1)))
    }

    @Test func aRequestedCancelWinsOverAFailure() {
        let outcome = threw(Flaky(isRetryable: true), cancelRequested: true)
        #expect(outcome.state == .cancelled)
        #expect(outcome.error == "cancelled while running")
    }

    @Test func aCancelledHandlerDuringDrainIsHandedBack() {
        #expect(threw(CancellationError(), draining: true).state == .queued)
        #expect(threw(Flaky(isRetryable: true), draining: true, taskCancelled: true).state == .queued)
    }

    @Test func aRealFailureDuringDrainIsStillAFailure() {
        #expect(threw(Flaky(isRetryable: true), draining: true, taskCancelled: false).state == .failed)
    }

    @Test func aCancellationOutsideDrainIsAnOrdinaryFailure() {
        // A lost job's handler is stopped this way: its outcome is fenced out at commit anyway.
        #expect(threw(CancellationError(), draining: false).state == .failed)
    }

    @Test func anUnknownKindIsDeadWithoutRetries() {
        let outcome = AttemptDecision.unknownKind(job(attempt: 1, maxAttempts: 5))
        #expect(outcome.state == .dead)
        #expect(outcome.error?.contains("k") == true)
    }

    // MARK: acknowledgement

    @Test func aSuccessIsAckedAndCounted() {
        #expect(AttemptDecision.acknowledgement(for: .succeeded) == .init(delivery: .ack, succeeded: true))
    }

    @Test func aRetryIsAckedBecauseTheRelayRepublishesIt() {
        #expect(AttemptDecision.acknowledgement(for: .failed) == .init(delivery: .ack, failed: true, retried: true))
    }

    @Test func aDeadJobsMessageGoesToTheDeadLetterQueue() {
        #expect(AttemptDecision.acknowledgement(for: .dead) == .init(delivery: .deadLetter, failed: true, dead: true))
    }

    @Test func aHandedBackJobsMessageIsRequeued() {
        #expect(AttemptDecision.acknowledgement(for: .queued) == .init(delivery: .requeue))
    }

    @Test func cancelledAndFencedOutAttemptsAreOnlyAcked() {
        #expect(AttemptDecision.acknowledgement(for: .cancelled) == .init(delivery: .ack))
        #expect(AttemptDecision.acknowledgement(for: nil) == .init(delivery: .ack))
    }
}

@Suite("'retry at' decisions, without servers", .timeLimit(.minutes(1)))
struct RetryAtDecisionTests {
    let job = ClaimedJob(id: UUID(), kind: "k", parameters: Data("{}".utf8), attempt: 2, maxAttempts: 3)

    @Test func aRetryAtReschedulesWithoutCountingTheAttempt() {
        var generator = SystemRandomNumberGenerator()
        let instant = Date(timeIntervalSince1970: 1_800_000_000)
        let outcome = AttemptDecision.threw(job, error: JobError.retryAt(instant, reason: "429 Too Many Requests"),
                                            cancelRequested: false, draining: false, taskCancelled: false,
                                            policy: RetryPolicy(), using: &generator)
        #expect(outcome.state == .queued)
        #expect(outcome.runAt == instant)
        #expect(outcome.error?.contains("429 Too Many Requests") == true)
        let completion = JobLifecycle.complete(state: .running, attempts: 2, outcome: .queued, attempt: 2, rescheduled: true)
        #expect(completion == JobLifecycle.Completion(state: .queued, republish: true, countsAttempt: false, keepsWorker: false))
        #expect(AttemptDecision.acknowledgement(for: .queued, rescheduled: true).delivery == .ack,
                "the relay publishes it at its instant; the delivery is done")
        #expect(AttemptDecision.acknowledgement(for: .queued).delivery == .requeue, "a hand-back still goes back to the broker")
    }

    @Test func cancelDrainAndTimeoutWinOverARetryAt() {
        var generator = SystemRandomNumberGenerator()
        let error = JobError.retryAt(Date(), reason: "429")
        #expect(AttemptDecision.threw(job, error: error, cancelRequested: true, draining: false, taskCancelled: false,
                                      policy: RetryPolicy(), using: &generator).state == .cancelled)
        #expect(AttemptDecision.threw(job, error: error, cancelRequested: false, draining: false, taskCancelled: false,
                                      timedOutAfter: 5, policy: RetryPolicy(), using: &generator).runAt == nil)
    }

    @Test func aJobToldToRetryLaterTooOftenFailsAnAttemptInstead() {
        var generator = SystemRandomNumberGenerator()
        var often = job
        often.rateLimited = AttemptDecision.maxRetryAt
        let outcome = AttemptDecision.threw(often, error: JobError.retryAt(Date(), reason: "429"), cancelRequested: false,
                                            draining: false, taskCancelled: false, policy: RetryPolicy(), using: &generator)
        #expect(outcome.state == .failed)
        #expect(outcome.runAt == nil)
    }

    /// A provider's own error type says when, through RetryAtError.
    struct ProviderRateLimited: RetryAtError, RetryableError {
        var retryAt: Date?
        var isRetryable: Bool { true }
    }

    @Test func anyRetryAtErrorWithAnInstantReschedulesAndWithoutOneFails() {
        var generator = SystemRandomNumberGenerator()
        let instant = Date().addingTimeInterval(7)
        #expect(AttemptDecision.threw(job, error: ProviderRateLimited(retryAt: instant), cancelRequested: false, draining: false,
                                      taskCancelled: false, policy: RetryPolicy(), using: &generator).runAt == instant)
        #expect(AttemptDecision.threw(job, error: ProviderRateLimited(retryAt: nil), cancelRequested: false, draining: false,
                                      taskCancelled: false, policy: RetryPolicy(), using: &generator).state == .failed)
    }
}
