import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

extension UUID {
    /// A version 7 UUID (RFC 9562): 48 bits of Unix time in milliseconds, then 12 bits of the
    /// sub-millisecond fraction (the RFC's "increased clock precision" method), then 62 random bits.
    ///
    /// Job and production ids are these rather than random (version 4) ids: ids made close in time
    /// sort close together, so the primary key's inserts, and the index entries every update of a
    /// job adds, land on the few rightmost B-tree pages instead of a random page of the whole index
    /// (fewer pages dirtied, and fewer full-page images in the WAL after each checkpoint).
    public static func timeOrdered(at time: timespec = .now) -> UUID {
        let milliseconds = UInt64(time.tv_sec) &* 1000 &+ UInt64(time.tv_nsec / 1_000_000)
        // The rest of the millisecond, in 1/4096ths.
        let fraction = UInt64(time.tv_nsec % 1_000_000) &* 4096 / 1_000_000
        var random = SystemRandomNumberGenerator()
        let low = random.next() as UInt64
        let high = (milliseconds << 16) | (0x7 << 12) | (fraction & 0xFFF)
        let variantAndRandom = (0b10 << 62) | (low >> 2)
        return UUID(uuid: bytes(high, variantAndRandom))
    }

    /// The Unix time in milliseconds a version 7 UUID carries; nil for other versions.
    public var timeOrderedMilliseconds: UInt64? {
        let b = uuid
        guard b.6 >> 4 == 7 else { return nil }
        return [b.0, b.1, b.2, b.3, b.4, b.5].reduce(0) { $0 << 8 | UInt64($1) }
    }

    private static func bytes(_ high: UInt64, _ low: UInt64) -> uuid_t {
        func byte(_ value: UInt64, _ index: Int) -> UInt8 { UInt8(truncatingIfNeeded: value >> (56 - 8 * index)) }
        return (byte(high, 0), byte(high, 1), byte(high, 2), byte(high, 3), byte(high, 4), byte(high, 5), byte(high, 6), byte(high, 7),
                byte(low, 0), byte(low, 1), byte(low, 2), byte(low, 3), byte(low, 4), byte(low, 5), byte(low, 6), byte(low, 7))
    }
}

extension timespec {
    /// The wall clock now (`CLOCK_REALTIME`); the default of ``UUID/timeOrdered(at:)``.
    @usableFromInline static var now: timespec {
        var time = timespec()
        clock_gettime(CLOCK_REALTIME, &time)
        return time
    }
}
