/// The kind of one screenplay element. Raw values are the stable JSON names.
public enum ElementType: String, Codable, Sendable, CaseIterable, Hashable {
    case sceneHeading, action, character, dialogue, parenthetical, transition
    case sectionHeading, synopsis, comment, boneyard, lyrics, centered, pageBreak
}

/// One element of a parsed document, ordered by the composite key (chapterIndex, orderIndex).
///
/// `text` keeps emphasis markup (`*`, `**`, `***`, `_`, `\` escapes); ``plainText`` is the
/// form without markup, used for speech.
public struct Element: Codable, Sendable, Hashable {
    public var type: ElementType
    public var text: String
    /// 0 before the first level-2 section heading; each level-2 heading starts the next chapter.
    public var chapterIndex: Int
    /// Counts from 1 inside each chapter.
    public var orderIndex: Int
    /// Section depth (number of `#`), for section headings.
    public var level: Int?
    /// Scene number (`#1A#`), for scene headings.
    public var sceneNumber: String?
    /// Character name without extension, for character cues.
    public var name: String?
    /// Text in the cue's trailing parentheses (V.O., O.S., CONT'D, ...).
    public var `extension`: String?
    /// True for the second speaker of a dual-dialogue pair.
    public var dual: Bool?

    public init(type: ElementType, text: String, chapterIndex: Int = 0, orderIndex: Int = 0,
                level: Int? = nil, sceneNumber: String? = nil, name: String? = nil,
                extension: String? = nil, dual: Bool? = nil) {
        (self.type, self.text, self.chapterIndex, self.orderIndex, self.level, self.sceneNumber, self.name, self.extension, self.dual)
            = (type, text, chapterIndex, orderIndex, level, sceneNumber, name, `extension`, dual)
    }
}

/// One title-page entry: a key as written and its (possibly multi-line) values.
public struct TitlePageEntry: Codable, Sendable, Hashable {
    public var key: String
    public var values: [String]
    public init(key: String, values: [String]) {
        self.key = key
        self.values = values
    }
}

/// The source format of a document.
public enum DocumentFormat: String, Codable, Sendable, CaseIterable, Hashable {
    case fountain, fdx, markdown
}

/// A parsed document: format, title page, ordered elements and what the parser warned about.
public struct ScreenplayDocument: Codable, Sendable, Hashable {
    public var format: DocumentFormat
    public var titlePage: [TitlePageEntry]
    public var elements: [Element]
    /// What was read in a way the writer may not have meant (empty for a clean file).
    public var warnings: [ParseWarning]

    public init(format: DocumentFormat, titlePage: [TitlePageEntry] = [], elements: [Element] = [],
                warnings: [ParseWarning] = []) {
        self.format = format
        self.titlePage = titlePage
        self.elements = elements
        self.warnings = warnings
    }

    private enum CodingKeys: String, CodingKey { case format, titlePage, elements, warnings }

    /// Decodes the element JSON; `warnings` may be absent (documents written before it existed).
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        format = try c.decode(DocumentFormat.self, forKey: .format)
        titlePage = try c.decodeIfPresent([TitlePageEntry].self, forKey: .titlePage) ?? []
        elements = try c.decode([Element].self, forKey: .elements)
        warnings = try c.decodeIfPresent([ParseWarning].self, forKey: .warnings) ?? []
    }
}
