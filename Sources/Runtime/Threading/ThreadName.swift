import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Thread names as Linux keeps them: at most 15 bytes (16 with the terminating zero).
/// `pthread_setname_np` refuses a longer name and leaves the thread with its creator's, so
/// `top -H` and a stack dump showed "reparto-worker-heartbeat" as its parent process's name.
public enum ThreadName {
    /// The most bytes of a thread's name Linux keeps.
    public static let limit = 15

    /// `name` cut to ``limit`` bytes on a character boundary, so that it is set.
    public static func fitted(_ name: String) -> String {
        guard name.utf8.count > limit else { return name }
        var fitted = ""
        for character in name {
            guard fitted.utf8.count + String(character).utf8.count <= limit else { break }
            fitted.append(character)
        }
        return fitted
    }

    /// Names the calling thread `name` (``fitted(_:)``), as Linux shows it, by writing the
    /// thread's own `comm`: Foundation's `Thread.current.name` reached the kernel only when the
    /// creating thread had already recorded the new one, and a thread that ran at once kept its
    /// creator's name ("oot.default-qos", in a CI run under load; `pthread_setname_np` is not
    /// visible to Swift here).
    @available(*, noasync)
    public static func nameCurrentThread(_ name: String) {
        let fitted = fitted(name)
        Thread.current.name = fitted
        let descriptor = open("/proc/thread-self/comm", O_WRONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return }
        defer { close(descriptor) }
        var bytes = Array(fitted.utf8)
        _ = write(descriptor, &bytes, bytes.count)
    }
}
