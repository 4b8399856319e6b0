/// The entry point: bytes or text in, ``ScreenplayDocument`` out.
public enum ScreenplayReader {
    /// Reads raw bytes. The format is `format` if given, else implied by `fileName`'s
    /// extension, else sniffed from the content (see ``FormatDetector``).
    public static func read(_ bytes: [UInt8], fileName: String? = nil, format: DocumentFormat? = nil,
                            options: ParseOptions = ParseOptions()) throws(ScreenplayError) -> ScreenplayDocument {
        let text = try InputDecoder.decode(bytes, options: options)
        let resolved = format ?? fileName.flatMap(FormatDetector.format(forFileName:)) ?? FormatDetector.sniff(text)
        return try parse(text, format: resolved, options: options)
    }

    /// Parses already decoded text in the given format.
    public static func parse(_ text: String, format: DocumentFormat,
                             options: ParseOptions = ParseOptions()) throws(ScreenplayError) -> ScreenplayDocument {
        if text.utf8.count > options.maxBytes { throw .tooLarge(size: text.utf8.count, limit: options.maxBytes) }
        switch format {
        case .fountain: return FountainParser().parse(text)
        case .markdown: return MarkdownParser().parse(text)
        case .fdx: return try FDXParser().parse(text)
        }
    }
}
