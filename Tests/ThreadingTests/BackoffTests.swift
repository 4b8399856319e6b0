import Testing
import Threading

@Suite("Backoff", .timeLimit(.minutes(1)))
struct BackoffTests {
    @Test func doublesUpToTheMaximumAndStartsOverAfterASuccess() {
        var backoff = Backoff(initial: 0.1, maximum: 1)
        #expect((0..<6).map { _ in backoff.next() } == [0.1, 0.2, 0.4, 0.8, 1, 1])
        #expect(backoff.failures == 6)
        backoff.reset()
        #expect(backoff.failures == 0)
        #expect(backoff.next() == 0.1)
    }

    @Test func jitterOnlyShortensAndStaysWithinItsFraction() {
        var backoff = Backoff(initial: 1, maximum: 8, jitter: 0.5)
        var generator = SystemRandomNumberGenerator()
        var delays: [Double] = []
        for expected in [1.0, 2, 4, 8, 8, 8, 8, 8] {
            let delay = backoff.next(using: &generator)
            #expect(delay <= expected && delay >= expected * 0.5, "\(delay) for \(expected)")
            delays.append(delay)
        }
        // Jitter draws differ: eight equal delays would mean it did nothing.
        #expect(Set(delays).count > 1)
    }
}
