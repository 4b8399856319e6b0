import Foundation
@testable import RepartoRuntime
import Testing

/// Which outcomes a worker commits in one statement of their own (``JobStore/completeSucceeded(_:on:)``).
@Suite("completions: what completes alone", .timeLimit(.minutes(1)))
struct CompletesAloneTests {
    @Test func onlyPlainSuccessesCompleteAlone() {
        let id = UUID()
        #expect(JobStore.completesAlone(JobOutcome(id: id, attempt: 1, state: .succeeded)))
        #expect(!JobStore.completesAlone(JobOutcome(id: id, attempt: 1, state: .failed, retryDelay: 1)))
        #expect(!JobStore.completesAlone(JobOutcome(id: id, attempt: 1, state: .dead, error: "no")))
        #expect(!JobStore.completesAlone(JobOutcome(id: id, attempt: 1, state: .cancelled)))
        #expect(!JobStore.completesAlone(JobOutcome(id: id, attempt: 1, state: .queued)))
        var withEffect = JobOutcome(id: id, attempt: 1, state: .succeeded)
        withEffect.effects = [{ _ in nil }]
        #expect(!JobStore.completesAlone(withEffect), "effects run in the completion's transaction")
    }
}
