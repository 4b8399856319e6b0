@testable import RepartoRuntime
import Foundation
import Testing

/// Drain on SIGTERM and the heartbeat's cancel and lost jobs, without a server.
@Suite(.timeLimit(.minutes(1))) struct WorkerDecisionTests {
    private let now = ContinuousClock.now

    @Test func drainWaitsWhileJobsRunBeforeTheDeadline() {
        #expect(DrainDecision.next(running: 2, now: now, deadline: now + .seconds(30)) == .wait)
    }

    @Test func drainIsFinishedWhenNothingRuns() {
        #expect(DrainDecision.next(running: 0, now: now, deadline: now + .seconds(30)) == .finished)
        #expect(DrainDecision.next(running: 0, now: now + .seconds(60), deadline: now) == .finished)
    }

    @Test func drainHandsBackWhatStillRunsAtTheDeadline() {
        #expect(DrainDecision.next(running: 3, now: now, deadline: now) == .handBack(count: 3))
        #expect(DrainDecision.next(running: 1, now: now + .seconds(1), deadline: now) == .handBack(count: 1))
    }

    @Test func aZeroDrainTimeoutHandsBackAtOnce() {
        #expect(DrainDecision.next(running: 5, now: now, deadline: now + .seconds(0)) == .handBack(count: 5))
    }

    @Test func heartbeatCancelsRunningJobsWhoseCancelWasRequested() {
        let a = UUID(), b = UUID()
        let decision = HeartbeatDecision.decide(cancel: [a], lost: [], running: [a, b])
        #expect(decision.markCancelled == [a])
        #expect(decision.stop == [a])
    }

    @Test func heartbeatStopsLostJobsWithoutMarkingThemCancelled() {
        let a = UUID()
        let decision = HeartbeatDecision.decide(cancel: [], lost: [a], running: [a])
        #expect(decision.markCancelled.isEmpty)
        #expect(decision.stop == [a])
    }

    @Test func aCancelForAJobNotStartedYetIsRememberedButStopsNothing() {
        let a = UUID()
        let decision = HeartbeatDecision.decide(cancel: [a], lost: [], running: [])
        #expect(decision.markCancelled == [a])
        #expect(decision.stop.isEmpty)
    }

    @Test func aLostJobThatAlreadyFinishedHereIsLeftAlone() {
        let decision = HeartbeatDecision.decide(cancel: [], lost: [UUID()], running: [UUID()])
        #expect(decision.stop.isEmpty)
        #expect(decision.markCancelled.isEmpty)
    }
}
