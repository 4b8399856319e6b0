@testable import RepartoRuntime
import Testing

/// A worker's progress notifications: the first at once, the rest of a window together at its end.
@Suite("progress notifications coalesce per window", .timeLimit(.minutes(1)))
struct NotificationWindowTests {
    private let start = ContinuousClock.now

    @Test func theFirstGoesAtOnceAndTheWindowsRestTogetherAtItsEnd() {
        var window = NotificationWindow(interval: .milliseconds(50))
        #expect(window.add(["a"], now: start) == .now(["a"]))
        #expect(window.add(["b"], now: start + .milliseconds(10)) == .at(start + .milliseconds(50)))
        #expect(window.add(["c", "b"], now: start + .milliseconds(20)) == .none, "already due at the window's end")
        #expect(window.flush(now: start + .milliseconds(50)) == ["b", "c"])
        // A new window from that send: within it, due at its end; after it, at once.
        #expect(window.add(["a"], now: start + .milliseconds(60)) == .at(start + .milliseconds(100)))
        #expect(window.flush(now: start + .milliseconds(100)) == ["a"])
        #expect(window.add(["d"], now: start + .milliseconds(200)) == .now(["d"]))
    }

    @Test func nothingToNotifyChangesNothing() {
        var window = NotificationWindow(interval: .milliseconds(50))
        #expect(window.add([], now: start) == .none)
        #expect(window.add(["a"], now: start + .milliseconds(1)) == .now(["a"]), "an empty add opened no window")
        #expect(window.add([], now: start + .milliseconds(2)) == .none)
        #expect(window.flush(now: start + .milliseconds(3)) == [])
    }
}
