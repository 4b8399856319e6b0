import Screenplay

/// A speaking character and (the start of) what they say, for the description written from their lines.
public struct AnalysisCharacter: Codable, Sendable, Hashable {
    public var name: String
    /// Every line they speak.
    public var lineCount: Int
    /// Their first lines, one per line, at most ``linesLimit`` characters.
    public var lines: String

    /// The most characters of dialogue sent for one description.
    public static let linesLimit = 4_000
    /// The most characters described per analysis (those with the most lines).
    public static let charactersLimit = 20

    public init(name: String, lineCount: Int, lines: String) {
        (self.name, self.lineCount, self.lines) = (name, lineCount, lines)
    }

    /// The speaking characters of a script, most lines first (ties by name), at most ``charactersLimit``.
    public static func characters(of document: ScreenplayDocument) -> [AnalysisCharacter] {
        var lines: [String: [String]] = [:]
        var speaker: String?
        for element in document.elements {
            switch element.type {
            case .character: speaker = (element.name ?? element.text).uppercased()
            case .dialogue: if let speaker { lines[speaker, default: []].append(element.text) }
            case .parenthetical: break
            default: speaker = nil
            }
        }
        return lines.map { name, said in
            var text = ""
            for line in said where text.count + line.count + 1 <= linesLimit { text += (text.isEmpty ? "" : "\n") + line }
            return AnalysisCharacter(name: name, lineCount: said.count, lines: text)
        }
        .sorted { $0.lineCount != $1.lineCount ? $0.lineCount > $1.lineCount : $0.name < $1.name }
        .prefix(charactersLimit).map { $0 }
    }
}
