import Foundation

/// One book spine as a vision model read it on a shelf photo.
public struct ShelfSpine: Codable, Sendable, Hashable {
    /// The title as printed (subtitle included when the model read one).
    public var title: String
    /// The author as printed, nil when the spine shows none.
    public var author: String?
    /// The model's confidence in its reading, 0…1.
    public var confidence: Double
    /// Left to right along the shelf, from 1 (top shelf first).
    public var position: Int

    public init(title: String, author: String?, confidence: Double, position: Int) {
        (self.title, self.author, self.confidence, self.position) = (title, author, confidence, position)
    }
}

/// The structured answer a vision model gives for one photo, and its checks.
public enum ShelfReading {
    /// The answer's name (OpenAI `json_schema.name`, Anthropic tool name).
    public static let schemaName = "bookshelf_spines"
    /// Changes when the prompt or schema changes: part of a reading's content key, so a photo read
    /// with an older prompt is read again.
    public static let promptVersion = "1"
    /// Most spines one photo may hold (a long shelf in one picture holds about 80).
    public static let maxSpines = 400

    public static let system = """
        You read the spines of books on bookshelf photos for a reader's library catalog. Report only \
        what is printed on the spines; never guess a book you cannot read.
        """

    public static let prompt = """
        List every book spine you can read in this photo, left to right, top shelf first. For each, give \
        the title as printed (with its subtitle if the spine shows one), the author as printed (null when \
        the spine shows no author), your confidence in the reading from 0 to 1, and its position (1 for \
        the first spine). Leave out spines you cannot read at all.
        """

    /// The JSON Schema of the answer (strict: every property required, no others).
    public static let schema: Data = {
        let object = """
            {"type":"object","additionalProperties":false,"required":["spines"],
             "properties":{"spines":{"type":"array","maxItems":\(maxSpines),"items":{"type":"object","additionalProperties":false,
               "required":["title","author","confidence","position"],
               "properties":{"title":{"type":"string"},"author":{"type":["string","null"]},
                             "confidence":{"type":"number","minimum":0,"maximum":1},"position":{"type":"integer","minimum":1}}}}}}
            """
        return Data(object.utf8)
    }()

    /// The spines of an answer, or why it does not validate (said back to the model on the retry).
    public static func spines(from json: Data) throws(ShelfReadingError) -> [ShelfSpine] {
        guard let object = try? JSONSerialization.jsonObject(with: json) as? [String: Any] else {
            throw .invalid("the answer is not a JSON object")
        }
        guard let list = object["spines"] as? [Any] else { throw .invalid("`spines` is missing or not an array") }
        guard list.count <= maxSpines else { throw .invalid("`spines` has \(list.count) items, more than \(maxSpines)") }
        var spines: [ShelfSpine] = []
        var positions = Set<Int>()
        for (index, item) in list.enumerated() {
            guard let entry = item as? [String: Any] else { throw .invalid("spines[\(index)] is not an object") }
            guard let title = (entry["title"] as? String)?.trimmingCharacters(in: .whitespacesAndNewlines), !title.isEmpty, title.count <= 500 else {
                throw .invalid("spines[\(index)].title must be a non-empty string of at most 500 characters")
            }
            let author: String?
            switch entry["author"] {
            case nil, is NSNull: author = nil
            case let text as String:
                let trimmed = text.trimmingCharacters(in: .whitespacesAndNewlines)
                guard trimmed.count <= 300 else { throw .invalid("spines[\(index)].author is longer than 300 characters") }
                author = trimmed.isEmpty ? nil : trimmed
            default: throw .invalid("spines[\(index)].author must be a string or null")
            }
            guard let confidence = (entry["confidence"] as? NSNumber)?.doubleValue, confidence.isFinite, (0...1).contains(confidence) else {
                throw .invalid("spines[\(index)].confidence must be a number from 0 to 1")
            }
            guard let number = entry["position"] as? NSNumber, let position = Int(exactly: number.doubleValue), position >= 1,
                  position <= maxSpines * 10 else {
                throw .invalid("spines[\(index)].position must be a whole number from 1")
            }
            guard positions.insert(position).inserted else { throw .invalid("position \(position) is given twice") }
            spines.append(ShelfSpine(title: title, author: author, confidence: confidence, position: position))
        }
        return spines.sorted { $0.position < $1.position }
    }
}

/// An answer that does not say what the schema asks.
public enum ShelfReadingError: Error, Sendable, Equatable, CustomStringConvertible {
    case invalid(String)

    public var description: String {
        switch self { case .invalid(let reason): reason }
    }
}
