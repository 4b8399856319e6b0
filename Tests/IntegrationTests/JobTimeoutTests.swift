import Foundation
import RepartoRuntime
import Testing
import Threading

/// Job timeouts: a handler that overruns is stopped and the attempt fails with the reason; the
/// deadline of a job that finished in time is forgotten at once (it used to stay allocated for
/// the whole timeout: the per-job memory growth of a long-running worker).
@Suite("job timeouts", .serialized, .timeLimit(.minutes(2)))
struct JobTimeoutTests {
    @Test func anOverrunningHandlerIsStoppedAndItsAttemptFails() async throws {
        let cluster = try await TestCluster.make()
        let worker = cluster.startWorker()
        // 60 s of sleep against a 0.5 s timeout, two attempts: dead with the reason, long before 60 s.
        let id = try await cluster.client.enqueue(SleepJob(seconds: 60), options: JobOptions(maxAttempts: 2, timeout: 0.5))
        let record = try await cluster.client.awaitJob(id, timeout: 45)
        #expect(record.state == .dead)
        #expect(record.attempts == 2)
        #expect(record.lastError?.contains("timed out after 0.5 s") == true, "\(record.lastError ?? "nil")")
        try await worker.stop()
        await cluster.shutdown()
    }

    @Test func deadlinesOfFinishedJobsAreNotKept() async throws {
        let cluster = try await TestCluster.make()
        let worker = cluster.startWorker(concurrency: 16)
        let ids = try await cluster.client.enqueue((0..<300).map { _ in
            try JobRequest(NoopJob(), options: JobOptions(timeout: 3600))
        })
        for id in ids { #expect(try await cluster.client.awaitJob(id, timeout: 60).state == .succeeded) }
        // Other suites' workers in this process may hold deadlines of their running jobs, but never
        // 300 of an hour each once these have finished: each is cancelled as its job ends.
        #expect(DeadlineWatch.shared.pending < 300)
        try await worker.stop()
        await cluster.shutdown()
    }
}
