@testable import RepartoRuntime
import Foundation
import Testing

/// A deterministic generator for jitter tests.
struct SeededGenerator: RandomNumberGenerator {
    var state: UInt64
    mutating func next() -> UInt64 {
        state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
        return state
    }
}

@Suite(.timeLimit(.minutes(2))) struct RetryPolicyTests {
    @Test func withoutJitterTheDelayDoublesUpToTheMaximum() {
        let policy = RetryPolicy(base: 1, multiplier: 2, maximum: 10, jitter: 0)
        var generator = SeededGenerator(state: 1)
        let delays = (1...6).map { policy.delay(afterAttempt: $0, using: &generator) }
        #expect(delays == [1, 2, 4, 8, 10, 10])
    }

    @Test(arguments: [1, 2, 3, 5, 8, 30])
    func jitterStaysWithinItsBand(attempt: Int) {
        let policy = RetryPolicy(base: 0.5, multiplier: 3, maximum: 120, jitter: 0.5)
        let ceiling = min(120, 0.5 * pow(3, Double(attempt - 1)))
        var generator = SeededGenerator(state: UInt64(attempt))
        for _ in 0..<200 {
            let delay = policy.delay(afterAttempt: attempt, using: &generator)
            #expect(delay >= ceiling * 0.5 - 1e-9)
            #expect(delay <= ceiling + 1e-9)
        }
    }

    @Test func jitterSpreadsRetries() {
        let policy = RetryPolicy(base: 1, multiplier: 2, maximum: 60, jitter: 1)
        var generator = SeededGenerator(state: 42)
        let delays = Set((0..<50).map { _ in policy.delay(afterAttempt: 4, using: &generator) })
        #expect(delays.count > 40) // not all the same instant
    }

    @Test func hugeAttemptCountsDoNotOverflow() {
        let policy = RetryPolicy(base: 1, multiplier: 10, maximum: 600, jitter: 0)
        var generator = SeededGenerator(state: 7)
        #expect(policy.delay(afterAttempt: 10_000, using: &generator) == 600)
    }
}

@Suite(.timeLimit(.minutes(2))) struct JobModelTests {
    @Test func finalStates() {
        #expect(JobState.allCases.filter(\.isFinal) == [.succeeded, .dead, .cancelled])
    }

    @Test func requestsEncodeParametersWithSortedKeys() throws {
        let request = try JobRequest(FailJob(message: "x", succeedOnAttempt: 2), options: JobOptions(priority: .high))
        #expect(request.kind == "fail")
        #expect(request.queue == "default")
        #expect(String(decoding: request.parameters, as: UTF8.self) == #"{"message":"x","permanent":false,"succeedOnAttempt":2}"#)
        #expect(request.options.priority.value == 8)
    }

    @Test func invalidParametersNameTheKeyPath() async throws {
        let registry = JobRegistry.withBuiltins()
        let sleep = try #require(registry.definition(for: "sleep"))
        #expect(throws: JobError.invalidParameters(kind: "sleep", reason: "missing key 'seconds' at top level")) {
            try sleep.validate(parameters: Data("{}".utf8))
        }
        #expect(throws: JobError.invalidParameters(kind: "sleep", reason: "expected Double at seconds")) {
            try sleep.validate(parameters: Data(#"{"seconds":"soon"}"#.utf8))
        }
        try sleep.validate(parameters: Data(#"{"seconds":1.5}"#.utf8))
    }

    @Test func registryListsKindsAndQueues() {
        let registry = JobRegistry.withBuiltins()
        #expect(registry.definitions.map(\.kind) == ["fail", "noop", "sleep"])
        #expect(registry.queues == ["default"])
    }

    @Test func retryableClassification() {
        #expect(JobError.timedOut(seconds: 1).isRetryable)
        #expect(!JobError.permanent("no").isRetryable)
        #expect(!JobError.unknownKind("x").isRetryable)
    }

    @Test func failureOutcomesRetryUntilTheLastAttempt() {
        let policy = RetryPolicy(base: 1, jitter: 0)
        func job(attempt: Int) -> ClaimedJob {
            ClaimedJob(id: UUID(), kind: "k", parameters: Data(), attempt: attempt, maxAttempts: 3,
                       productionID: nil, stage: nil, timeout: nil)
        }
        let first = Worker.failure(for: job(attempt: 1), text: "e", retryable: true, policy: policy)
        #expect(first.state == .failed)
        #expect(first.retryDelay == 1)
        let last = Worker.failure(for: job(attempt: 3), text: "e", retryable: true, policy: policy)
        #expect(last.state == .dead)
        #expect(last.error == "e (gave up after 3 attempts)")
        let permanent = Worker.failure(for: job(attempt: 1), text: "bad", retryable: false, policy: policy)
        #expect(permanent.state == .dead)
        #expect(permanent.error == "bad")
    }
}

@Suite(.timeLimit(.minutes(2))) struct BatcherTests {
    @Test func everyItemIsFlushedOnceAndBatchesRespectTheLimit() async {
        let seen = Collector()
        let batcher = Batcher<Int>(maxBatch: 7) { batch in await seen.add(batch) }
        for i in 0..<100 { batcher.add(i) }
        await batcher.waitUntilIdle()
        let batches = await seen.batches
        #expect(batches.flatMap { $0 }.sorted() == Array(0..<100))
        #expect(batches.allSatisfy { $0.count <= 7 })
    }
}

actor Collector {
    var batches: [[Int]] = []
    func add(_ batch: [Int]) { batches.append(batch) }
}
