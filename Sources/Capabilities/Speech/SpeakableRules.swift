import Foundation
import Screenplay

/// Decides what of a screenplay is read aloud, by whom, and how.
///
/// Defaults: dialogue (and lyrics inside a dialogue block) in the character's voice; action,
/// scene headings (read naturally: `INT. KITCHEN - NIGHT` → "Interior. Kitchen. Night."),
/// transitions, section headings, centered text and lyrics outside dialogue in the narrator's
/// voice; parentheticals, comments, boneyard, synopses and page breaks silent. A parenthetical in
/// a dialogue block becomes the ``Delivery`` of the lines after it until the next parenthetical or
/// the end of the block (``DeliveryTable``), whether or not it is spoken. Emphasis markup is
/// never read: every text comes from `Element.plainText`.
public struct SpeakableRules: Codable, Sendable, Hashable {
    public var speakSceneHeadings = true
    public var speakAction = true
    public var speakTransitions = true
    public var speakSectionHeadings = true
    public var speakParentheticals = false
    public var speakComments = false
    public var speakBoneyard = false
    public var speakSynopses = false
    /// When true a page break is read as "Page break." by the narrator.
    public var speakPageBreaks = false
    /// When true the narrator says "<NAME> says" before each dialogue block.
    public var announceCharacters = false
    /// The announcement; `{name}` is replaced by the cue name as written (e.g. "ISOLDE").
    public var announcementTemplate = "{name} says"

    public init() {}

    /// The speakable items of `document`, in element order.
    public func items(for document: ScreenplayDocument) -> [SpeakableItem] {
        items(for: document.elements)
    }

    /// The speakable items of `elements`, in the order given.
    public func items(for elements: [Element]) -> [SpeakableItem] {
        var out: [SpeakableItem] = []
        var speaker: String?  // the cue of the current dialogue block
        // The parenthetical in force in the block; its pause goes before the first line after it only.
        var delivery: Delivery?
        func add(_ e: Element, _ role: SpeakerRole, _ text: String, delivery: Delivery? = nil) {
            let t = text.trimmingCharacters(in: .whitespacesAndNewlines)
            guard !t.isEmpty else { return }
            out.append(SpeakableItem(chapterIndex: e.chapterIndex, orderIndex: e.orderIndex, elementType: e.type, role: role, text: t,
                                     delivery: delivery))
        }
        func addSpoken(_ e: Element) {
            let count = out.count
            add(e, speaker.map(SpeakerRole.character) ?? .narrator, e.plainText, delivery: delivery)
            if out.count > count { delivery?.pauseBefore = 0 }
        }
        for e in elements {
            switch e.type {
            case .character:
                let cue = e.name ?? Self.cueName(e.plainText)
                speaker = CastingDirector.normalize(cue)
                delivery = nil
                if announceCharacters {
                    add(e, .narrator, announcementTemplate.replacingOccurrences(of: "{name}", with: cue.trimmingCharacters(in: .whitespaces)))
                }
                continue
            case .dialogue, .lyrics:
                addSpoken(e)
                continue
            case .parenthetical:
                if speakParentheticals { add(e, .narrator, Self.stripParentheses(e.plainText)) }
                delivery = DeliveryTable.delivery(for: e.plainText)
                continue
            default:
                break
            }
            speaker = nil
            delivery = nil
            switch e.type {
            case .sceneHeading where speakSceneHeadings: add(e, .narrator, Self.naturalSceneHeading(e.plainText))
            case .action where speakAction: add(e, .narrator, e.plainText)
            case .centered where speakAction: add(e, .narrator, e.plainText)
            case .transition where speakTransitions: add(e, .narrator, Self.naturalTransition(e.plainText))
            case .sectionHeading where speakSectionHeadings: add(e, .narrator, e.plainText)
            case .comment where speakComments: add(e, .narrator, e.plainText)
            case .boneyard where speakBoneyard: add(e, .narrator, e.plainText)
            case .synopsis where speakSynopses: add(e, .narrator, e.plainText)
            case .pageBreak where speakPageBreaks: add(e, .narrator, "Page break.")
            default: break
            }
        }
        return out
    }

    // MARK: text shaping

    private static let scenePrefixes: [(String, String)] = [
        ("INT./EXT.", "Interior, exterior."), ("INT/EXT.", "Interior, exterior."), ("INT/EXT", "Interior, exterior."),
        ("EXT./INT.", "Exterior, interior."), ("EXT/INT.", "Exterior, interior."), ("EXT/INT", "Exterior, interior."),
        ("I./E.", "Interior, exterior."), ("I/E.", "Interior, exterior."), ("I/E", "Interior, exterior."),
        ("INT.", "Interior."), ("INT", "Interior."), ("EXT.", "Exterior."), ("EXT", "Exterior."),
        ("EST.", "Establishing."), ("EST", "Establishing."),
    ]

    /// `INT. KITCHEN - NIGHT` → `Interior. Kitchen. Night.`; a trailing `#12A#` scene number is dropped.
    public static func naturalSceneHeading(_ heading: String) -> String {
        var text = heading.trimmingCharacters(in: .whitespaces)
        if text.hasSuffix("#"), let open = text.dropLast().lastIndex(of: "#") {
            text = String(text[..<open]).trimmingCharacters(in: .whitespaces)
        }
        if text.hasPrefix(".") && !text.hasPrefix("..") { text.removeFirst() }  // forced heading
        var parts: [String] = []
        let upper = text.uppercased()
        for (prefix, spoken) in scenePrefixes where upper.hasPrefix(prefix) {
            let after = upper.index(upper.startIndex, offsetBy: prefix.count)
            // The prefix must end the word ("INTERIOR" is not "INT").
            if after == upper.endIndex || upper[after] == " " || prefix.hasSuffix(".") {
                parts.append(spoken)
                text = String(text.dropFirst(prefix.count)).trimmingCharacters(in: .whitespaces)
                break
            }
        }
        let pieces = text.replacingOccurrences(of: " – ", with: " - ").replacingOccurrences(of: " — ", with: " - ")
            .components(separatedBy: " - ")
        for piece in pieces {
            var p = piece.trimmingCharacters(in: .whitespaces)
            while p.hasSuffix(".") || p.hasSuffix("-") { p.removeLast() }
            p = p.trimmingCharacters(in: .whitespaces)
            guard !p.isEmpty else { continue }
            parts.append(titleCasedIfShouting(p) + ".")
        }
        return parts.joined(separator: " ")
    }

    /// `CUT TO:` → `Cut to.`
    public static func naturalTransition(_ text: String) -> String {
        var t = text.trimmingCharacters(in: .whitespaces)
        if t.hasPrefix(">") { t = String(t.dropFirst()).trimmingCharacters(in: .whitespaces) }
        while t.hasSuffix(":") || t.hasSuffix(".") { t.removeLast() }
        guard !t.isEmpty else { return "" }
        if t == t.uppercased() {
            let lower = t.lowercased()
            t = lower.prefix(1).uppercased() + lower.dropFirst()
        }
        return t + "."
    }

    /// `MARY'S HOUSE` → `Mary's House`; mixed-case text is left alone.
    static func titleCasedIfShouting(_ text: String) -> String {
        guard text == text.uppercased(), text.contains(where: \.isLetter) else { return text }
        return text.lowercased().split(separator: " ", omittingEmptySubsequences: false).map { word in
            word.prefix(1).uppercased() + word.dropFirst()
        }.joined(separator: " ")
    }

    static func stripParentheses(_ text: String) -> String {
        var t = text.trimmingCharacters(in: .whitespaces)
        if t.hasPrefix("(") { t.removeFirst() }
        if t.hasSuffix(")") { t.removeLast() }
        return t
    }

    /// The cue without its extension: `ISOLDE (V.O.)` → `ISOLDE`; a forcing `@` is dropped.
    static func cueName(_ cue: String) -> String {
        var c = cue.trimmingCharacters(in: .whitespaces)
        if c.hasPrefix("@") { c.removeFirst() }
        if c.hasSuffix("^") { c.removeLast() }
        if let paren = c.firstIndex(of: "(") { c = String(c[..<paren]) }
        return c.trimmingCharacters(in: .whitespaces)
    }
}
