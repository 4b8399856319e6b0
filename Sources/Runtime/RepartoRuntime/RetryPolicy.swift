import Foundation

/// Exponential backoff with jitter between attempts.
///
/// The delay before attempt `n + 1` (after `n` failed attempts) is
/// `min(maximum, base × multiplier^(n-1))`, of which a `jitter` fraction is randomised, so
/// workers that failed together do not retry together.
public struct RetryPolicy: Sendable, Equatable {
    public var base: Double
    public var multiplier: Double
    public var maximum: Double
    /// 0 = no jitter, 1 = "full jitter" (anywhere between 0 and the delay).
    public var jitter: Double

    public init(base: Double = 1, multiplier: Double = 2, maximum: Double = 600, jitter: Double = 0.5) {
        self.base = base
        self.multiplier = multiplier
        self.maximum = maximum
        self.jitter = min(max(jitter, 0), 1)
    }

    /// Seconds to wait after the `failedAttempts`-th failure.
    public func delay(afterAttempt failedAttempts: Int, using generator: inout some RandomNumberGenerator) -> Double {
        let exponent = Double(max(0, failedAttempts - 1))
        var ceiling = base * pow(multiplier, exponent)
        if !ceiling.isFinite || ceiling > maximum { ceiling = maximum }
        let randomPart = ceiling * jitter * Double.random(in: 0...1, using: &generator)
        return ceiling * (1 - jitter) + randomPart
    }

    public func delay(afterAttempt failedAttempts: Int) -> Double {
        var generator = SystemRandomNumberGenerator()
        return delay(afterAttempt: failedAttempts, using: &generator)
    }
}
