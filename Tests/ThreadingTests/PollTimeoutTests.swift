import Testing
import Threading

/// A duration as the milliseconds `poll()` takes.
@Suite("poll timeouts from durations", .timeLimit(.minutes(1)))
struct PollTimeoutTests {
    @Test func partsOfAMillisecondRoundUpSoAWaitNeverEndsEarly() {
        #expect(Duration.microseconds(1).pollTimeoutMilliseconds == 1)
        #expect(Duration.microseconds(1500).pollTimeoutMilliseconds == 2)
        #expect(Duration.milliseconds(250).pollTimeoutMilliseconds == 250)
        #expect(Duration.seconds(3).pollTimeoutMilliseconds == 3000)
    }

    @Test func nothingLeftIsZero() {
        #expect(Duration.zero.pollTimeoutMilliseconds == 0)
        #expect(Duration.milliseconds(-5).pollTimeoutMilliseconds == 0)
    }

    @Test func whatPollCannotTakeIsClamped() {
        #expect(Duration.seconds(3_000_000).pollTimeoutMilliseconds == Int32.max)
        #expect(Duration.seconds(Int64.max).pollTimeoutMilliseconds == Int32.max)
    }
}
