import Foundation

/// A value protected by an `NSLock`.
///
/// `@unchecked Sendable` because every access to `value` goes through `withLock`, which holds the
/// lock for the whole closure; the compiler cannot see that. (Synchronization's `Mutex` would do
/// the same but needs macOS 15, and the package supports macOS 14.)
final class Locked<Value>: @unchecked Sendable {
    private let lock = NSLock()
    private var value: Value

    init(_ value: Value) {
        self.value = value
    }

    func withLock<Result>(_ body: (inout Value) throws -> Result) rethrows -> Result {
        lock.lock()
        defer { lock.unlock() }
        return try body(&value)
    }
}
