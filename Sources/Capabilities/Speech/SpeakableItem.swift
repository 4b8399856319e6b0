import Screenplay

/// Who speaks an item: the narrator or a character (by normalized cue name).
public enum SpeakerRole: Codable, Sendable, Hashable, CustomStringConvertible {
    case narrator
    case character(String)

    public var description: String {
        switch self {
        case .narrator: return "narrator"
        case .character(let name): return name
        }
    }
}

/// One thing to say: the element it comes from, who says it and the exact text to speak.
public struct SpeakableItem: Codable, Sendable, Hashable {
    /// The source element's composite key.
    public var chapterIndex: Int
    public var orderIndex: Int
    /// The source element's type.
    public var elementType: ElementType
    public var role: SpeakerRole
    /// Plain text, without markup, ready for a provider.
    public var text: String
    /// How the line is said, from the parenthetical before it in its dialogue block (nil: none).
    public var delivery: Delivery?

    public init(chapterIndex: Int, orderIndex: Int, elementType: ElementType, role: SpeakerRole, text: String,
                delivery: Delivery? = nil) {
        (self.chapterIndex, self.orderIndex, self.elementType, self.role, self.text, self.delivery)
            = (chapterIndex, orderIndex, elementType, role, text, delivery)
    }
}
