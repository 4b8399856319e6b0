import Foundation

/// How long a test's client waits for a local stand-in whose answer time is not what the test checks.
///
/// Generous on purpose: the full suite runs dozens of suites in parallel on two cores, and a
/// stand-in hashing a 4 MB image can take seconds there. A test of the timeout itself sets its own.
public enum StandInTimeout {
    public static let seconds: TimeInterval = 60
}
