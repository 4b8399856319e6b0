/// The entry point: bytes or text in, ``ScreenplayDocument`` out.
public enum ScreenplayReader {
    /// The version of the parsers' reading: raised whenever a change makes some input parse to
    /// different elements, so stored parses of unchanged bytes are made again (see the `parse` job).
    /// 2: FDX paragraphs nested in paragraphs (Final Draft's dual dialogue) are read; warnings;
    /// Windows-1252 input.
    public static let parserVersion = 2

    /// Reads raw bytes. The format is `format` if given, else implied by `fileName`'s
    /// extension, else sniffed from the content (see ``FormatDetector``).
    public static func read(_ bytes: [UInt8], fileName: String? = nil, format: DocumentFormat? = nil,
                            options: ParseOptions = ParseOptions()) throws(ScreenplayError) -> ScreenplayDocument {
        let decoded = try InputDecoder.decodeWithWarnings(bytes, options: options)
        let resolved = format ?? fileName.flatMap(FormatDetector.format(forFileName:)) ?? FormatDetector.sniff(decoded.text)
        var document = try parse(decoded.text, format: resolved, options: options)
        document.warnings.insert(contentsOf: decoded.warnings, at: 0)
        return document
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
