/// How the by-hand runs of `reparto bench pipeline` share lines between processes: contiguous
/// runs in script order, as someone splitting a file with `split -n l/N` would, so each process's
/// outputs come back in order and one process's share follows the other's.
enum LineShares {
    /// `count` items split into at most `parts` contiguous, non-empty ranges whose sizes differ by
    /// at most one (the larger first); none when `count` is 0.
    static func split(_ count: Int, into parts: Int) -> [Range<Int>] {
        let count = max(count, 0), parts = max(1, min(parts, count))
        guard count > 0 else { return [] }
        let base = count / parts, larger = count % parts
        var ranges: [Range<Int>] = []
        var start = 0
        for part in 0..<parts {
            let size = base + (part < larger ? 1 : 0)
            ranges.append(start..<start + size)
            start += size
        }
        return ranges
    }
}
