/// Exponential backoff for reconnect and retry loops: starts at `initial` seconds, doubles after
/// each failure up to `maximum`, and starts over after a success.
///
/// A value type: each loop owns its own. With `jitter`, each delay is drawn uniformly from
/// [delay × (1 − jitter), delay], so processes restarted together do not retry in step.
public struct Backoff: Sendable, Hashable {
    /// The first delay, in seconds.
    public let initial: Double
    /// The longest delay, in seconds.
    public let maximum: Double
    /// The fraction (0…1) by which a delay may be shortened at random.
    public let jitter: Double
    /// The delay the next failure waits, before jitter.
    public private(set) var current: Double
    /// Failures since the last success.
    public private(set) var failures = 0

    /// A backoff from `initial` to `maximum` seconds, doubling.
    public init(initial: Double, maximum: Double, jitter: Double = 0) {
        precondition(initial > 0 && maximum >= initial, "backoff needs 0 < initial ≤ maximum")
        self.initial = initial
        self.maximum = maximum
        self.jitter = min(max(jitter, 0), 1)
        self.current = initial
    }

    /// Records a failure and returns how long to wait before the next attempt.
    public mutating func next() -> Double {
        var generator = SystemRandomNumberGenerator()
        return next(using: &generator)
    }

    /// ``next()`` with the given random source (for tests).
    public mutating func next<G: RandomNumberGenerator>(using generator: inout G) -> Double {
        let delay = current
        failures += 1
        current = min(current * 2, maximum)
        guard jitter > 0 else { return delay }
        return delay * (1 - jitter * Double.random(in: 0...1, using: &generator))
    }

    /// Records a success: the next failure waits `initial` again.
    public mutating func reset() {
        current = initial
        failures = 0
    }
}
