/// The delivery tags a consumer holds, in arrival (ascending) order, and which are done.
///
/// Completions arrive out of order; the broker's `multiple` ack covers every tag up to one, so
/// only the contiguous completed prefix can go as one ack, the rest go one by one.
struct AckWindow {
    private var tags: [UInt64] = []
    private var done: Set<UInt64> = []
    private var start = 0

    var isEmpty: Bool { start == tags.count }

    mutating func insert(_ tag: UInt64) { tags.append(tag) }

    mutating func complete(_ tag: UInt64) { done.insert(tag) }

    /// Forgets a tag that was rejected instead of acked.
    mutating func remove(_ tag: UInt64) {
        if let index = tags[start...].firstIndex(of: tag) { tags.remove(at: index) }
        done.remove(tag)
    }

    /// The tag to ack with `multiple` (the end of the completed prefix) and the completed tags after it.
    mutating func takeAckable() -> (multiple: UInt64?, singles: [UInt64]) {
        guard !done.isEmpty else { return (nil, []) }
        var end = start
        while end < tags.count, done.contains(tags[end]) {
            done.remove(tags[end])
            end += 1
        }
        let multiple: UInt64? = end > start ? tags[end - 1] : nil
        start = end
        if start > 4096 {
            tags.removeFirst(start)
            start = 0
        }
        var singles: [UInt64] = []
        if !done.isEmpty {
            singles = tags[start...].filter { done.contains($0) }
            tags.removeAll { done.contains($0) }
            start = min(start, tags.count)
            done.removeAll()
        }
        return (multiple, singles)
    }
}
