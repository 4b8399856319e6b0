/// Exact nearest-neighbour search by cosine similarity. Pure. Every stored vector is compared
/// (O(scenes × dimensions) per query: ~1 ms for 10,000 scenes of 768 dimensions); beyond a few
/// hundred thousand vectors an index (pgvector's HNSW) is the path, see docs/generation.md.
public enum SceneSearch {
    /// Cosine similarity in [-1, 1]; 0 when either vector is zero or their lengths differ.
    public static func cosine(_ a: [Float], _ b: [Float]) -> Double {
        guard a.count == b.count, !a.isEmpty else { return 0 }
        var dot = 0.0, na = 0.0, nb = 0.0
        for i in a.indices {
            let x = Double(a[i]), y = Double(b[i])
            dot += x * y
            na += x * x
            nb += y * y
        }
        guard na > 0, nb > 0 else { return 0 }
        return dot / (na.squareRoot() * nb.squareRoot())
    }

    /// The `limit` candidates most similar to `query`, best first (ties keep their order).
    public static func rank<T>(_ query: [Float], _ candidates: [(item: T, vector: [Float])], limit: Int) -> [(item: T, score: Double)] {
        let scored = candidates.enumerated().map { (offset: $0.offset, item: $0.element.item, score: cosine(query, $0.element.vector)) }
        return scored.sorted { $0.score != $1.score ? $0.score > $1.score : $0.offset < $1.offset }
            .prefix(max(0, limit)).map { ($0.item, $0.score) }
    }
}
