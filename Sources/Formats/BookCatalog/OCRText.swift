/// What text read off a photo (a spine, a cover) gets wrong, for comparing keys tolerantly.
enum OCRText {
    /// A key (``MatchKey`` words) with the confusions OCR and vision models make folded together
    /// and the word breaks dropped ("the h0bbit" → "thehobblt", "narne" → "name", "c1une" → "dune"):
    /// two keys with the same skeleton read the same to a camera.
    static func skeleton(_ key: String) -> String {
        var text = String(key.filter { $0 != " " }.map { single[$0] ?? $0 })
        for (misread, letter) in multiLetter { text = text.replacingOccurrences(of: misread, with: letter) }
        return text
    }

    /// Letter pairs read for one letter: "rn" for m, "cl" for d, "vv" for w.
    private static let multiLetter: [(String, String)] = [("rn", "m"), ("cl", "d"), ("vv", "w")]
    /// Characters read for one another: 0/O, 1/l/I, 5/S, 8/B.
    private static let single: [Character: Character] = ["0": "o", "1": "l", "i": "l", "5": "s", "8": "b"]

    /// The Levenshtein distance of two strings (insertions, deletions, substitutions), by character.
    static func distance(_ a: String, _ b: String) -> Int {
        let a = Array(a), b = Array(b)
        if a.isEmpty { return b.count }
        if b.isEmpty { return a.count }
        var previous = Array(0...b.count)
        var current = [Int](repeating: 0, count: b.count + 1)
        for i in 1...a.count {
            current[0] = i
            for j in 1...b.count {
                current[j] = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1))
            }
            swap(&previous, &current)
        }
        return previous[b.count]
    }

    /// 1 − distance / the longer length: 1 for equal strings, 0 for nothing in common.
    static func similarity(_ a: String, _ b: String) -> Double {
        let longest = max(a.count, b.count)
        guard longest > 0 else { return 1 }
        return 1 - Double(distance(a, b)) / Double(longest)
    }

    /// The numbers a key names, sorted: digits (misread letters in a token that is mostly digits
    /// read back as digits: "l984" → 1984, "4s1" → 451; an ordinal's suffix dropped: "50th" → 50),
    /// Roman numerals from II on, and the number words one to twenty. A sequel's number is what
    /// tells it from the first book, so two titles that differ in one are different books.
    static func numbers(in key: String) -> [Int] {
        var found: [Int] = []
        for word in key.split(separator: " ").map(String.init) {
            if let number = digits(word) ?? roman[word] ?? words[word] { found.append(number) }
        }
        return found.sorted()
    }

    private static func digits(_ word: String) -> Int? {
        var token = Substring(word)
        for suffix in ["st", "nd", "rd", "th"] where token.count > suffix.count && token.hasSuffix(suffix) {
            let stem = token.dropLast(suffix.count)
            if stem.allSatisfy(\.isNumber) { token = stem }
        }
        let digitCount = token.filter(\.isNumber).count
        guard digitCount > 0, digitCount * 2 > token.count else { return nil }
        let read = String(token.map { digitFor[$0] ?? $0 })
        guard read.allSatisfy({ $0.isASCII && $0.isNumber }) else { return nil }
        return Int(read.prefix(9))
    }

    private static let digitFor: [Character: Character] = ["o": "0", "l": "1", "i": "1", "s": "5", "b": "8", "z": "2"]

    private static let roman: [String: Int] = [
        "ii": 2, "iii": 3, "iv": 4, "vi": 6, "vii": 7, "viii": 8, "ix": 9, "xi": 11, "xii": 12, "xiii": 13,
        "xiv": 14, "xv": 15, "xvi": 16, "xvii": 17, "xviii": 18, "xix": 19, "xx": 20,
    ]

    private static let words: [String: Int] = [
        "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8, "nine": 9, "ten": 10,
        "eleven": 11, "twelve": 12, "thirteen": 13, "fourteen": 14, "fifteen": 15, "sixteen": 16, "seventeen": 17,
        "eighteen": 18, "nineteen": 19, "twenty": 20,
    ]
}
