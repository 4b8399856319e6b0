import Foundation

/// Checks and splits text before it reaches a provider.
public enum SpeechText {
    /// A hard limit for one ``SpeechSynthesizer`` call, whatever the chunking (1 MiB of characters).
    public static let defaultMaximumLength = 1 << 20

    /// Returns `text` trimmed.
    /// - Throws: ``SpeechError/emptyText`` for empty or whitespace-only text,
    ///   ``SpeechError/textTooLong(length:limit:)`` above `limit` characters.
    public static func validated(_ text: String, limit: Int) throws(SpeechError) -> String {
        let trimmed = text.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !trimmed.isEmpty else { throw .emptyText }
        let length = trimmed.count
        guard length <= limit else { throw .textTooLong(length: length, limit: limit) }
        return trimmed
    }

    /// Splits `text` into chunks of at most `maxLength` characters, preferring sentence ends,
    /// then line breaks, then spaces; a single over-long word is cut hard.
    public static func chunks(_ text: String, maxLength: Int) -> [String] {
        precondition(maxLength > 0)
        var result: [String] = []
        var rest = Substring(text)
        while !rest.isEmpty {
            if rest.count <= maxLength {
                result.append(String(rest))
                break
            }
            let window = rest.prefix(maxLength)
            var cut = window.endIndex
            if let i = window.lastIndex(where: { ".!?;".contains($0) }), i > window.startIndex {
                cut = window.index(after: i)
            } else if let i = window.lastIndex(where: { $0.isNewline || $0 == " " }), i > window.startIndex {
                cut = i
            }
            result.append(String(rest[rest.startIndex..<cut]))
            rest = rest[cut...].drop(while: { $0.isWhitespace })
        }
        return result.map { $0.trimmingCharacters(in: .whitespacesAndNewlines) }.filter { !$0.isEmpty }
    }
}
