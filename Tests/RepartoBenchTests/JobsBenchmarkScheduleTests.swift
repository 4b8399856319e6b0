@testable import RepartoBench
import Testing

@Suite("bench jobs: the offered rate, tick by tick", .timeLimit(.minutes(1)))
struct JobsBenchmarkScheduleTests {
    private func batches(rate: Int, ticks: Int) -> [Int] {
        (0..<ticks).map { JobsBenchmark.jobsDue(throughTick: $0, rate: rate) - JobsBenchmark.jobsDue(throughTick: $0 - 1, rate: rate) }
    }

    @Test(arguments: [1496, 1400, 1765, 50, 1, 100_003])
    func aSecondOfTicksOffersTheRateExactly(rate: Int) {
        #expect(batches(rate: rate, ticks: 100).reduce(0, +) == rate)
        #expect(batches(rate: rate, ticks: 1000).reduce(0, +) == 10 * rate)
    }

    @Test func batchesDifferByAtMostOne() {
        let sizes = Set(batches(rate: 1496, ticks: 500))
        #expect(sizes == [14, 15])
        #expect(Set(batches(rate: 50, ticks: 100)) == [0, 1], "below 100 jobs/s some ticks offer nothing")
    }

    @Test func nothingIsDueBeforeTheFirstTickAndAHugeProductSaturates() {
        #expect(JobsBenchmark.jobsDue(throughTick: -1, rate: 1000) == 0)
        #expect(JobsBenchmark.jobsDue(throughTick: Int.max / 2, rate: 1000) == Int.max)
    }

    @Test func theWarmUpIsEnqueuedInBatchesTheProducerPublishesItself() {
        #expect(JobsBenchmark.warmupBatches(200, largestPublished: 100) == [100, 100])
        #expect(JobsBenchmark.warmupBatches(250, largestPublished: 100) == [100, 100, 50])
        #expect(JobsBenchmark.warmupBatches(25, largestPublished: 100) == [25])
        #expect(JobsBenchmark.warmupBatches(3, largestPublished: 0) == [1, 1, 1], "a batch holds at least one job")
        #expect(JobsBenchmark.warmupBatches(0, largestPublished: 100).isEmpty)
    }
}
