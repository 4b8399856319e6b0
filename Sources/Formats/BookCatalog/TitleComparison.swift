/// How close a title as read is to a candidate's: 0…1 and why.
///
/// The keys (``MatchKey``: case, punctuation, diacritics, a series suffix and a leading article
/// ignored) are compared as wholes, and also with a subtitle dropped from either side or the
/// edition words dropped from both ("Dune" against "Dune: Deluxe Edition"). Each comparison is
/// equal (1), equal once OCR confusions are folded (0.97, ``OCRText/skeleton(_:)``), close
/// (similarity ≥ 0.8 by edit distance, times 0.97), or different (similarity times 0.6). A drop
/// weighs: edition words 0.97; a subtitle of substance 0.92, or 0.86 when what is left has
/// fewer than three words that are neither articles nor common title words ("Dune" against
/// "Dune: House Atreides"; "Star Wars" against "Star Wars: A New Hope"). Titles whose numbers
/// differ ("Volume 2" / "Volume 3", "Dune" / "Dune 2") score at most 0.6, whatever else agrees.
enum TitleComparison {
    struct Verdict {
        var score: Double
        var evidence: [String]
        /// Equal as wholes, allowing OCR confusions and edition words only (no subtitle of
        /// substance dropped, no letters differing).
        var isWhole: Bool
    }

    private enum Level {
        case equal, ocr, close(distance: Int), different

        var words: String {
            switch self {
            case .equal: "equal"
            case .ocr: "equal allowing for OCR confusions"
            case .close: "close"
            case .different: "different"
            }
        }
    }

    private struct Pair {
        var read: String
        var candidate: String
        var weight: Double
        /// What was dropped to compare these ("dropping the subtitle \"…\""), nil for the whole titles.
        var dropped: String?
        /// The whole titles with their articles (``TitleForm/spelled``), for word breaks OCR lost.
        var spelled: (read: String, candidate: String)? = nil
    }

    static func compare(read: TitleForm, candidate: TitleForm) -> Verdict {
        var pairs = [Pair(read: read.key, candidate: candidate.key, weight: 1, dropped: nil,
                          spelled: (read.spelled, candidate.spelled))]
        if let main = candidate.main, let subtitle = candidate.subtitle {
            pairs.append(Pair(read: read.key, candidate: main, weight: dropWeight(subtitle, leaving: main),
                              dropped: dropping(subtitle, side: "the candidate's")))
        }
        if let main = read.main, let subtitle = read.subtitle {
            pairs.append(Pair(read: main, candidate: candidate.key, weight: dropWeight(subtitle, leaving: main),
                              dropped: dropping(subtitle, side: "the")))
        }
        if read.plain != read.key || candidate.plain != candidate.key {
            let words = [read, candidate].filter { $0.plain != $0.key }.map { String($0.key.dropFirst($0.plain.count)).trimmingSpaces }
            pairs.append(Pair(read: read.plain, candidate: candidate.plain, weight: 0.97,
                              dropped: "dropping the edition words \"\(words.joined(separator: "\" and \""))\""))
        }
        var best: Verdict?
        for pair in pairs {
            let verdict = judge(pair, read: read.text, candidate: candidate.text)
            if best == nil || verdict.score > best!.score { best = verdict }
        }
        return best!
    }

    private static func judge(_ pair: Pair, read: String, candidate: String) -> Verdict {
        var (level, similarity) = level(pair.read, pair.candidate)
        if case .equal = level {} else if let spelled = pair.spelled,
           OCRText.skeleton(spelled.read) == OCRText.skeleton(spelled.candidate) {
            (level, similarity) = (.ocr, 1)
        }
        var score: Double
        switch level {
        case .equal: score = 1
        case .ocr: score = 0.97
        case .close: score = similarity * 0.97
        case .different: score = similarity * 0.6
        }
        score *= pair.weight
        var evidence: [String]
        switch level {
        case .different:
            evidence = ["titles differ (\"\(read)\" vs \"\(candidate)\")"]
        case .equal where pair.dropped == nil:
            evidence = ["title equal"]
        default:
            var text = "title \(level.words)"
            if let dropped = pair.dropped { text += " after \(dropped)" }
            if case let .close(distance) = level { text += ": \(distance) \(distance == 1 ? "letter differs" : "letters differ")" }
            if case .equal = level {} else { text += " (\"\(read)\" vs \"\(candidate)\")" }
            evidence = [text]
        }
        let readNumbers = OCRText.numbers(in: pair.read), candidateNumbers = OCRText.numbers(in: pair.candidate)
        if readNumbers != candidateNumbers {
            score = min(score, 0.6)
            evidence.append("numbers in the titles differ (\(list(readNumbers)) vs \(list(candidateNumbers)))")
        }
        let whole: Bool = switch level {
        case .equal, .ocr: pair.weight >= 0.97 && readNumbers == candidateNumbers
        default: false
        }
        return Verdict(score: score, evidence: evidence, isWhole: whole)
    }

    private static func level(_ read: String, _ candidate: String) -> (Level, similarity: Double) {
        if read == candidate { return (.equal, 1) }
        let a = OCRText.skeleton(read), b = OCRText.skeleton(candidate)
        if a == b { return (.ocr, 1) }
        let similarity = OCRText.similarity(a, b)
        return similarity >= 0.8 ? (.close(distance: OCRText.distance(a, b)), similarity) : (.different, similarity)
    }

    /// A dropped subtitle's weight: edition words hardly count; a subtitle of substance does, the
    /// more when what is left could be many books' title.
    private static func dropWeight(_ subtitle: String, leaving main: String) -> Double {
        if TitleForm.isEditionWords(subtitle) { return 0.97 }
        return TitleForm.significantWords(main).count >= 3 ? 0.92 : 0.86
    }

    private static func dropping(_ subtitle: String, side: String) -> String {
        TitleForm.isEditionWords(subtitle) ? "dropping the edition words \"\(subtitle)\"" : "dropping \(side) subtitle \"\(subtitle)\""
    }

    private static func list(_ numbers: [Int]) -> String {
        numbers.isEmpty ? "none" : numbers.map(String.init).joined(separator: ", ")
    }
}
