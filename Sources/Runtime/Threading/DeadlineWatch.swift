import Foundation

/// Deadlines kept by one thread of its own, which runs each action when its deadline passes
/// unless it was cancelled first.
///
/// Why not a sleeping child task per deadline (the usual `withTimeout`): on Linux a cancelled
/// `Task.sleep` leaves its task and its dispatch timer allocated until the sleep's deadline
/// passes (measured with heaptrack: about 430 bytes a sleep). A worker that ran each job next to
/// a sleeping timeout task held one such sleep for every job it finished within the timeout: 50,000
/// one-millisecond jobs with a 300 s timeout grew it by ~36 MB. Here a cancelled deadline is gone
/// at once, and the thread wakes only for the earliest deadline.
public final class DeadlineWatch: @unchecked Sendable {
    // @unchecked: every stored `var` is read and written only while `condition` is locked.

    /// Identifies one scheduled deadline, to cancel it.
    public struct Token: Hashable, Sendable {
        fileprivate let id: UInt64
    }

    private struct Entry {
        var deadline: ContinuousClock.Instant
        var action: @Sendable () -> Void
    }

    /// One watch for the whole process: its thread is started on first use and lives on.
    public static let shared = DeadlineWatch(name: "reparto.deadlines")
    /// The longest deadline it keeps (about 31 years): longer ones wait that long instead.
    static let longestWait: Double = 1e9

    private let condition = NSCondition()
    private let name: String
    private var entries: [UInt64: Entry] = [:]
    private var nextID: UInt64 = 0
    private var started = false
    /// The deadline the thread sleeps until (nil: no thread waiting, or waiting for any entry).
    private var sleepingUntil: ContinuousClock.Instant?
    private var sleepingForever = false

    /// A watch whose thread is named `name` (started on first use).
    public init(name: String) { self.name = name }

    /// Number of deadlines not yet passed nor cancelled.
    public var pending: Int {
        condition.lock()
        defer { condition.unlock() }
        return entries.count
    }

    /// Runs `action` on the watch's thread once `seconds` have passed, unless cancelled first.
    /// The action must be quick (it delays the other deadlines); it typically cancels a task.
    @discardableResult
    public func schedule(after seconds: Double, _ action: @escaping @Sendable () -> Void) -> Token {
        let deadline = ContinuousClock.now + .seconds(min(max(0, seconds), Self.longestWait))  // a job's timeout of 1e21 s must not trap
        condition.lock()
        defer { condition.unlock() }
        nextID += 1
        entries[nextID] = Entry(deadline: deadline, action: action)
        if !started {
            started = true
            let thread = Thread { [self] in
                ThreadName.nameCurrentThread(name)
                loop()
            }
            thread.start()
        } else if sleepingForever || (sleepingUntil.map { deadline < $0 } ?? false) {
            condition.signal()
        }
        return Token(id: nextID)
    }

    /// Forgets a deadline; its action will not run (unless it is running already).
    public func cancel(_ token: Token) {
        condition.lock()
        entries[token.id] = nil
        condition.unlock()
    }

    @available(*, noasync)
    private func loop() {
        condition.lock()
        while true {
            let now = ContinuousClock.now
            var due: [@Sendable () -> Void] = []
            var earliest: ContinuousClock.Instant?
            for (id, entry) in entries {
                if entry.deadline <= now {
                    due.append(entry.action)
                    entries[id] = nil
                } else if earliest.map({ entry.deadline < $0 }) ?? true {
                    earliest = entry.deadline
                }
            }
            if !due.isEmpty {
                condition.unlock()
                due.forEach { $0() }
                condition.lock()
                continue
            }
            if let earliest {
                sleepingUntil = earliest
                sleepingForever = false
                let seconds = (earliest - now) / .seconds(1)
                _ = condition.wait(until: Date().addingTimeInterval(seconds))
            } else {
                sleepingUntil = nil
                sleepingForever = true
                condition.wait()
            }
            sleepingUntil = nil
            sleepingForever = false
        }
    }
}
