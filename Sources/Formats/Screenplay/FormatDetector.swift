/// Decides which parser reads a document.
public enum FormatDetector {
    /// The format implied by a file name's extension: `.fountain`, `.spmd`, `.txt` → Fountain;
    /// `.fdx` → FDX; `.md`, `.markdown` → Markdown; anything else → nil.
    public static func format(forFileName name: String) -> DocumentFormat? {
        guard let dot = name.lastIndex(of: "."), !name[dot...].contains("/") else { return nil }
        switch name[name.index(after: dot)...].lowercased() {
        case "fountain", "spmd", "txt": return .fountain
        case "fdx": return .fdx
        case "md", "markdown": return .markdown
        default: return nil
        }
    }

    /// Guesses the format from content: XML (`<?xml`, `<FinalDraft`) → FDX; otherwise the
    /// text is scored for Markdown signals (code fences, list items, links, `---`/`***`
    /// rules, `>` quotes, headings followed by paragraphs) against Fountain signals (scene
    /// headings, transitions, all-caps cues followed by dialogue, a `Title:` first line).
    /// Ties go to Fountain.
    public static func sniff(_ text: String) -> DocumentFormat {
        var head = text[...]
        if head.hasPrefix("\u{FEFF}") { head = head.dropFirst() }
        let start = head.trimmingSpaces().prefix(64)
        if start.hasPrefix("<?xml") || start.hasPrefix("<FinalDraft") { return .fdx }
        var markdown = 0
        var fountain = 0
        var previousBlank = true
        var previousCue = false
        var lineNumber = 0
        for line in text.split(separator: "\n", omittingEmptySubsequences: false).prefix(400) {
            lineNumber += 1
            let t = line.trimmingSpaces()
            defer { previousBlank = t.isEmpty }
            if t.isEmpty { previousCue = false; continue }
            if lineNumber == 1 && t.lowercased().hasPrefix("title:") { fountain += 5 }
            if t.hasPrefix("```") || t.hasPrefix("~~~") { markdown += 3 }
            if t.hasPrefix("- ") || t.hasPrefix("* ") || t.hasPrefix("+ ") { markdown += 1 }
            if t.contains("](") { markdown += 2 }
            if t == "---" || t == "***" { markdown += 1 }
            if t.hasPrefix("> ") { markdown += 1 }
            let bytes = ArraySlice(t.utf8)
            if previousBlank && FountainClassifier.isSceneHeading(bytes) { fountain += 3 }
            if t.hasSuffix("TO:") && FountainClassifier.isUppercase(bytes) { fountain += 2 }
            if previousCue && !t.hasPrefix("#") { fountain += 2 }
            previousCue = previousBlank && !t.hasPrefix("#") && !t.hasPrefix("-")
                && CharacterCue.isUppercaseName(t) && t.count < 40
        }
        return markdown > fountain ? .markdown : .fountain
    }
}
