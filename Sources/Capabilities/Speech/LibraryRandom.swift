#if canImport(Glibc)
import Glibc
#endif
import Synchronization

/// The C library's one `rand()` sequence, which both linked engines draw noise from (flite's
/// clustergen voices for their mixed excitation, libespeak-ng for breath and Klatt noise).
///
/// An engine holds it for a whole synthesis, so a synthesis on one engine's thread cannot move
/// the sequence under another's: with a fixed seed, the same request gives the same samples
/// however many engines the process runs.
enum LibraryRandom {
    private static let lock = Mutex(())

    /// Runs `body` holding the sequence, after seeding it with `seed` when given.
    @available(*, noasync)
    static func withSequence<T: Sendable>(seed: UInt32?, _ body: () -> T) -> T {
        lock.withLock { _ in
            if let seed { srand(seed) }
            return body()
        }
    }
}
