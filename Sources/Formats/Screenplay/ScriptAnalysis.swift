import Foundation

/// Document-level facts a production needs: scenes, characters, page count and runtime.
///
/// Pages are estimated the way screenwriting software paginates: every printed element takes
/// its wrapped line count (Courier 12 pt: action 57 characters wide, dialogue 35, parentheticals
/// 25) plus the blank line before it, and a page holds ``linesPerPage`` lines. A page is about a
/// minute of screen time, so the runtime estimate is one minute per page. Scene lengths are in
/// eighths of a page, as a script supervisor measures them (at least 1/8).
///
/// Pure: no I/O. Deterministic for a given document.
public struct ScriptAnalysis: Codable, Sendable, Hashable {
    /// Printed lines on one page of a standard-format screenplay.
    public static let linesPerPage = 55
    /// Screen time of one page, in seconds.
    public static let secondsPerPage = 60.0

    /// Where a scene happens, from its heading's prefix.
    public enum Setting: String, Codable, Sendable, Hashable {
        case interior = "INT"
        case exterior = "EXT"
        case interiorExterior = "INT/EXT"
        case establishing = "EST"
    }

    /// One scene: from its heading to the next heading.
    public struct Scene: Codable, Sendable, Hashable {
        /// 1-based position in the script.
        public var index: Int
        /// The heading element's key.
        public var chapterIndex: Int
        public var orderIndex: Int
        /// The heading as written (without emphasis markup or a trailing `#12#` number).
        public var heading: String
        /// INT, EXT, INT/EXT or EST; nil for a forced heading without one of these prefixes.
        public var setting: Setting?
        /// The place: the heading without its prefix and time of day.
        public var location: String
        /// What follows the last ` - ` (DAY, NIGHT, CONTINUOUS…), if anything does.
        public var timeOfDay: String?
        /// The scene number (`#12A#`), if the script numbers scenes.
        public var sceneNumber: String?
        /// Printed lines, heading included.
        public var lineCount: Int
        /// Length in eighths of a page (at least 1).
        public var eighths: Int
        /// Estimated screen time in seconds.
        public var estimatedSeconds: Double
    }

    /// One speaking character.
    public struct Character: Codable, Sendable, Hashable {
        /// The normalized cue name (see ``CharacterCue/normalize(_:)``).
        public var name: String
        /// Dialogue (and lyrics) elements spoken.
        public var dialogueLines: Int
        /// Words in those elements.
        public var words: Int
        /// The first cue's key.
        public var firstChapter: Int
        public var firstOrder: Int
        /// 1-based indexes of the scenes with a cue of this character, in order.
        public var scenes: [Int]
    }

    public var scenes: [Scene]
    /// Characters in order of first appearance.
    public var characters: [Character]
    /// Estimated pages (fractional).
    public var pageCount: Double
    /// Estimated screen time in seconds (one minute per page).
    public var estimatedSeconds: Double
    /// Words in every printed element.
    public var wordCount: Int

    /// Analyses `document`.
    public init(document: ScreenplayDocument) {
        var scenes: [Scene] = []
        var characters: [Character] = []
        var characterIndex: [String: Int] = [:]
        var totalLines = 0
        var words = 0
        var speaker: Int?

        func closeScene() {
            guard var last = scenes.popLast() else { return }
            last.eighths = max(1, Int((Double(last.lineCount) * 8 / Double(Self.linesPerPage)).rounded(.up)))
            last.estimatedSeconds = Double(last.lineCount) / Double(Self.linesPerPage) * Self.secondsPerPage
            scenes.append(last)
        }

        for element in document.elements {
            let text = element.plainText
            var lines = Self.printedLines(element, text: text)
            if element.type == .pageBreak {
                // The rest of the current page stays empty.
                let used = totalLines % Self.linesPerPage
                lines = used == 0 ? 0 : Self.linesPerPage - used
            }
            totalLines += lines
            if lines > 0, element.type != .pageBreak { words += Self.wordCount(text) }

            switch element.type {
            case .sceneHeading:
                closeScene()
                scenes.append(Self.scene(element, text: text, index: scenes.count + 1))
                speaker = nil
            case .character:
                let name = CharacterCue.normalize(element.name ?? CharacterCue(parsing: Substring(text))?.name ?? text)
                if name.isEmpty { speaker = nil; break }
                let position: Int
                if let known = characterIndex[name] {
                    position = known
                } else {
                    position = characters.count
                    characterIndex[name] = position
                    characters.append(Character(name: name, dialogueLines: 0, words: 0, firstChapter: element.chapterIndex,
                                                firstOrder: element.orderIndex, scenes: []))
                }
                if let scene = scenes.last?.index, characters[position].scenes.last != scene {
                    characters[position].scenes.append(scene)
                }
                speaker = position
            case .dialogue, .lyrics:
                if let speaker {
                    characters[speaker].dialogueLines += 1
                    characters[speaker].words += Self.wordCount(text)
                }
            case .parenthetical:
                break
            default:
                speaker = nil
            }
            if lines > 0, !scenes.isEmpty, element.type != .sceneHeading {
                scenes[scenes.count - 1].lineCount += lines
            }
        }
        closeScene()

        self.scenes = scenes
        self.characters = characters
        self.pageCount = Double(totalLines) / Double(Self.linesPerPage)
        self.estimatedSeconds = pageCount * Self.secondsPerPage
        self.wordCount = words
    }

    /// The 1-based index of the scene containing the element at (`chapter`, `order`), or nil
    /// before the first scene heading of its chapter (a chapter break ends a scene).
    public func sceneIndex(chapter: Int, order: Int) -> Int? {
        // Scenes are in document order; find the last heading at or before the element.
        var low = 0
        var high = scenes.count
        while low < high {
            let mid = (low + high) / 2
            let s = scenes[mid]
            if (s.chapterIndex, s.orderIndex) <= (chapter, order) { low = mid + 1 } else { high = mid }
        }
        guard low > 0, scenes[low - 1].chapterIndex == chapter else { return nil }
        return scenes[low - 1].index
    }

    // MARK: pieces

    /// Wrapped lines plus the blank line before, for printed elements; 0 for the rest.
    static func printedLines(_ element: Element, text: String) -> Int {
        switch element.type {
        case .sceneHeading, .transition: return 1 + wrappedLines(text, width: 57)
        case .action, .centered: return 1 + wrappedLines(text, width: 57)
        case .character: return 1 + 1
        case .dialogue, .lyrics: return wrappedLines(text, width: 35)
        case .parenthetical: return wrappedLines(text, width: 25)
        case .sectionHeading, .synopsis, .comment, .boneyard, .pageBreak: return 0
        }
    }

    /// Lines `text` takes when word-wrapped at `width` characters (explicit newlines kept).
    static func wrappedLines(_ text: String, width: Int) -> Int {
        var total = 0
        for paragraph in text.split(separator: "\n", omittingEmptySubsequences: false) {
            var lines = 1
            var column = 0
            for word in paragraph.split(separator: " ", omittingEmptySubsequences: true) {
                let length = word.count
                if column == 0 {
                    column = length
                } else if column + 1 + length <= width {
                    column += 1 + length
                } else {
                    lines += 1
                    column = length
                }
                while column > width {  // a word longer than the line
                    lines += 1
                    column -= width
                }
            }
            total += lines
        }
        return total
    }

    static func wordCount(_ text: String) -> Int {
        text.split(whereSeparator: { $0.isWhitespace }).count { word in word.contains { $0.isLetter || $0.isNumber } }
    }

    private static let prefixes: [(String, Setting)] = [
        ("INT./EXT.", .interiorExterior), ("INT/EXT.", .interiorExterior), ("INT/EXT", .interiorExterior),
        ("EXT./INT.", .interiorExterior), ("EXT/INT.", .interiorExterior), ("EXT/INT", .interiorExterior),
        ("I./E.", .interiorExterior), ("I/E.", .interiorExterior), ("I/E", .interiorExterior),
        ("INT.", .interior), ("INT", .interior), ("EXT.", .exterior), ("EXT", .exterior),
        ("EST.", .establishing), ("EST", .establishing),
    ]

    static func scene(_ element: Element, text: String, index: Int) -> Scene {
        var heading = text.trimmingCharacters(in: .whitespacesAndNewlines)
        // A trailing scene number `#12A#` belongs in sceneNumber, not the heading.
        if heading.hasSuffix("#"), let open = heading.dropLast().lastIndex(of: "#") {
            heading = String(heading[..<open]).trimmingCharacters(in: .whitespacesAndNewlines)
        }
        var rest = Substring(heading)
        var setting: Setting?
        let upper = heading.uppercased()
        for (prefix, value) in prefixes where upper.hasPrefix(prefix) {
            let after = upper.dropFirst(prefix.count)
            // `INT` must be followed by a separator, so `INTERVIEW ROOM` is not an interior.
            guard after.isEmpty || after.first == " " || after.first == "." || prefix.hasSuffix(".") else { continue }
            setting = value
            rest = rest.dropFirst(prefix.count).drop { $0 == " " || $0 == "." }
            break
        }
        var location = String(rest).trimmingCharacters(in: .whitespacesAndNewlines)
        var timeOfDay: String?
        for separator in [" - ", " — ", " – "] {
            if let range = location.range(of: separator, options: .backwards) {
                let time = String(location[range.upperBound...]).trimmingCharacters(in: .whitespacesAndNewlines)
                if !time.isEmpty {
                    timeOfDay = time
                    location = String(location[..<range.lowerBound]).trimmingCharacters(in: .whitespacesAndNewlines)
                }
                break
            }
        }
        return Scene(index: index, chapterIndex: element.chapterIndex, orderIndex: element.orderIndex, heading: heading,
                     setting: setting, location: location, timeOfDay: timeOfDay, sceneNumber: element.sceneNumber,
                     lineCount: printedLines(element, text: text), eighths: 1, estimatedSeconds: 0)
    }
}

extension CharacterCue {
    /// Upper-cased, trimmed, inner whitespace collapsed: `" Isolde  Marie "` → `"ISOLDE MARIE"`.
    /// The one spelling of a character's name used for casting and statistics.
    public static func normalize(_ name: String) -> String {
        name.uppercased().split(whereSeparator: { $0.isWhitespace }).joined(separator: " ")
    }
}
