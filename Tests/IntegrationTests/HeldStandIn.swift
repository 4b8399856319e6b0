import Foundation

/// A stand-in's gate for cancel tests: the first `free` keys (say, book titles or scene headings)
/// it is asked about are answered, as they come; a request about any other key is held — its
/// handler thread waits — until ``openEverything()`` or the request's deadline. With a worker
/// that runs one job at a time, that leaves exactly one job finished, one running (held) and
/// the rest waiting, whatever order the jobs run in.
final class HeldStandIn: @unchecked Sendable {
    // `@unchecked Sendable`: every stored property is touched only while `condition` is locked.
    private let condition = NSCondition()
    private var free: Int
    private var allowed: Set<String> = []
    private var open = false
    private var heldKeys: [String] = []

    init(free: Int) { self.free = free }

    /// Whether to answer a request about `key`: at once for an allowed key; otherwise waits until
    /// everything is opened (true) or `timeout` seconds pass (false: the caller answers an error).
    func admit(_ key: String, timeout: Double = 90) -> Bool {
        condition.lock()
        defer { condition.unlock() }
        if open || allowed.contains(key) { return true }
        if free > 0 {
            free -= 1
            allowed.insert(key)
            return true
        }
        heldKeys.append(key)
        let deadline = Date().addingTimeInterval(timeout)
        while !open {
            if !condition.wait(until: deadline) { return open }
        }
        return true
    }

    /// The keys answered at once (the free ones).
    var answered: Set<String> { condition.withLock { allowed } }

    /// The keys of requests that were held, in arrival order.
    var held: [String] { condition.withLock { heldKeys } }

    /// Answers every request from now on, and the held ones.
    func openEverything() {
        condition.withLock {
            open = true
            condition.broadcast()
        }
    }
}
