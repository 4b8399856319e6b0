/// Writes a document as Fountain such that ``FountainParser`` reads back the same elements.
///
/// Elements are separated by a blank line, except inside a dialogue block (cue,
/// parentheticals, dialogue, and notes/boneyard between them). Lines that would be read as
/// something else are forced (`!` action, `@` character, `.` scene heading, `>` transition).
/// Empty lines inside action and dialogue are written as two spaces.
public struct FountainWriter: Sendable {
    /// Creates a writer.
    public init() {}

    /// Returns Fountain text for `document`.
    public func write(_ document: ScreenplayDocument) -> String {
        var out = ""
        for entry in document.titlePage {
            if entry.values.count == 1 {
                out += "\(entry.key): \(entry.values[0])\n"
            } else {
                out += "\(entry.key):\n"
                for v in entry.values { out += "    \(v)\n" }
            }
        }
        var body: [String] = []
        let elements = document.elements
        var inGroup = false
        for (k, e) in elements.enumerated() {
            let block = render(e)
            let separator: String
            switch e.type {
            case .parenthetical, .dialogue:
                separator = inGroup ? "\n" : "\n\n"
            case .comment, .boneyard:
                let nextSpeech = elements[(k + 1)...].first(where: { $0.type != .comment && $0.type != .boneyard })
                    .map { $0.type == .parenthetical || $0.type == .dialogue } ?? false
                if !(inGroup && nextSpeech) { inGroup = false }
                separator = inGroup ? "\n" : "\n\n"
            default:
                inGroup = false
                separator = "\n\n"
            }
            if e.type == .character { inGroup = true }
            body.append(body.isEmpty ? block : separator + block)
        }
        let bodyText = body.joined()
        if document.titlePage.isEmpty {
            // A body whose first line contains ':' could be taken for a title page.
            let firstLine = bodyText.prefix(while: { $0 != "\n" })
            if firstLine.contains(":") { out += "\n" }
        } else {
            out += "\n"
        }
        return out + bodyText + "\n"
    }

    func render(_ e: Element) -> String {
        switch e.type {
        case .sceneHeading:
            let line = e.text + (e.sceneNumber.map { " #\($0)#" } ?? "")
            if case .sceneHeading(e.text, e.sceneNumber) = classify(line, nextBlank: true) { return line }
            return "." + line
        case .action:
            let lines = e.text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
            var out: [String] = []
            for (i, line) in lines.enumerated() {
                if line.trimmingSpaces().isEmpty { out.append("  "); continue }
                let nextBlank = i + 1 >= lines.count || lines[i + 1].trimmingSpaces().isEmpty
                let kind = FountainClassifier.classify(ArraySlice(line.utf8), prevBlank: i == 0, inDialogue: false) { nextBlank }
                out.append(kind == .action(line.trimmingTrailingSpaces()) ? line : "!" + line)
            }
            return out.joined(separator: "\n")
        case .character:
            let cue = (e.text.isEmpty ? e.name ?? "" : e.text) + (e.dual == true ? " ^" : "")
            if case .character(let parsed) = classify(cue, nextBlank: false),
               parsed.text == e.text, parsed.name == e.name, parsed.extension == e.extension {
                return cue
            }
            return "@" + cue
        case .dialogue:
            return e.text.split(separator: "\n", omittingEmptySubsequences: false)
                .map { $0.trimmingSpaces().isEmpty ? "  " : String($0) }.joined(separator: "\n")
        case .parenthetical:
            return e.text
        case .transition:
            if case .transition(e.text) = classify(e.text, nextBlank: true) { return e.text }
            return "> " + e.text
        case .centered:
            return "> " + e.text + " <"
        case .lyrics:
            return e.text.split(separator: "\n", omittingEmptySubsequences: false).map { "~" + $0 }.joined(separator: "\n")
        case .sectionHeading:
            return String(repeating: "#", count: max(1, e.level ?? 1)) + " " + e.text
        case .synopsis:
            return e.text.split(separator: "\n", omittingEmptySubsequences: false).map { "= " + $0 }.joined(separator: "\n")
        case .comment:
            return "[[" + connectBlankLines(e.text) + "]]"
        case .boneyard:
            return "/*\n" + e.text + "\n*/"
        case .pageBreak:
            return "==="
        }
    }

    func classify(_ line: String, nextBlank: Bool) -> FountainLineKind? {
        let bytes = ArraySlice(line.utf8)
        guard !bytes.trimmed().isEmpty else { return nil }
        return FountainClassifier.classify(bytes, prevBlank: true, inDialogue: false) { nextBlank }
    }

    /// Notes may not contain an empty line; a line of two spaces keeps them together.
    func connectBlankLines(_ text: String) -> String {
        text.split(separator: "\n", omittingEmptySubsequences: false)
            .map { $0.trimmingSpaces().isEmpty ? "  " : String($0) }.joined(separator: "\n")
    }
}
