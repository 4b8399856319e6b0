import Foundation
@testable import RepartoBench
import Testing

@Suite("soak: what each process grew between the first and the last sample", .timeLimit(.minutes(1)))
struct SoakGrowthTests {
    private typealias Sample = SoakBenchmark.Sample
    private typealias Resources = SoakBenchmark.ProcessSample

    @Test func workersAndTheProducerEachGetTheirChangeAndBytesAJob() {
        let first = Sample(jobs: 50_000, jobsPerSecond: 5000, p99: 20, workers: [
            7: Resources(rssKiB: 40 * 1024, descriptors: 30), 9: Resources(rssKiB: 50 * 1024, descriptors: 31),
        ], producer: Resources(rssKiB: 20 * 1024, descriptors: 12))
        let last = Sample(jobs: 1_050_000, jobsPerSecond: 5000, p99: 20, workers: [
            7: Resources(rssKiB: 41 * 1024, descriptors: 30), 11: Resources(rssKiB: 10 * 1024, descriptors: 20),
        ], producer: Resources(rssKiB: 22 * 1024, descriptors: 13))
        let lines = SoakBenchmark.growth([first, last]).split(separator: "\n").map(String.init)
        // Worker 9 died and 11 started: only 7 was there throughout.
        #expect(lines == [
            "worker 7: RSS +1.0 MB over 1000000 jobs (+1 bytes a job), descriptors +0",
            "producer: RSS +2.0 MB over 1000000 jobs (+2 bytes a job), descriptors +1",
        ])
    }

    @Test func noWorkerThroughoutIsSaidAndTheProducerStillCounts() {
        let first = Sample(jobs: 1, jobsPerSecond: 1, p99: 1, workers: [7: Resources(rssKiB: 1, descriptors: 1)],
                           producer: Resources(rssKiB: 1024, descriptors: 10))
        let last = Sample(jobs: 2, jobsPerSecond: 1, p99: 1, workers: [:], producer: Resources(rssKiB: 1024, descriptors: 9))
        #expect(SoakBenchmark.growth([first, last]) == """
            no worker of this host was alive in the first and last samples
            producer: RSS +0.0 MB over 1 jobs (+0 bytes a job), descriptors -1
            """)
        #expect(SoakBenchmark.growth([first]) == "one sample: no growth to report")
    }
}
