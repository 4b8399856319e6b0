import Foundation

/// Deterministic screenplay-like sentences for the speech benchmarks.
public enum BenchSentences {
    static let subjects = ["Isolde", "The old captain", "Tristan", "A waiter", "The radio", "Marke", "Nobody", "The kettle"]
    static let verbs = ["looks out over", "slowly crosses", "whispers about", "points at", "forgets", "circles back to"]
    static let objects = ["the harbour at night.", "a letter nobody wrote.", "the empty kitchen.", "the last train home.",
                          "three cold cups of tea.", "the storm rolling in from the west."]

    /// `count` sentences, repeating after a while (fine where nothing is cached).
    public static func make(_ count: Int) -> [String] {
        (0..<count).map { i in
            "\(subjects[i % subjects.count]) \(verbs[(i / 3) % verbs.count]) \(objects[(i / 7) % objects.count])"
        }
    }

    /// `count` different screenplay-like lines (subject × verb × object × ending, in mixed radix),
    /// so a run never speaks the same line twice.
    public static func distinct(_ count: Int) -> [String] {
        let endings = ["", " Then silence.", " Again.", " Nobody moves."]
        let space = subjects.count * verbs.count * objects.count * endings.count
        return (0..<count).map { n in
            let i = n % space
            var line = "\(subjects[i % subjects.count]) \(verbs[(i / subjects.count) % verbs.count]) "
                + "\(objects[(i / (subjects.count * verbs.count)) % objects.count])"
                + endings[(i / (subjects.count * verbs.count * objects.count)) % endings.count]
            if n >= space { line += " Take \(n / space + 1)." }
            return line
        }
    }

    /// The non-empty lines of the file at `path`.
    public static func read(_ path: String) throws -> [String] {
        try String(contentsOfFile: path, encoding: .utf8).split(whereSeparator: \.isNewline).map(String.init).filter { !$0.isEmpty }
    }
}
