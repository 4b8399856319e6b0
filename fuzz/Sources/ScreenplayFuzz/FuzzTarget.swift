import Screenplay

/// libFuzzer entry point: feeds the bytes to the decoder and all three parsers, then to the
/// writers, JSON encoder and emphasis stripping. Crashes, hangs (libFuzzer `-timeout`) and
/// memory blow-ups (`-rss_limit_mb`) are findings; parse errors are fine.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOneInput(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    let options = ParseOptions(maxBytes: 1 << 20)
    _ = try? ScreenplayReader.read(bytes, options: options)
    guard let text = try? InputDecoder.decode(bytes, options: options) else { return 0 }
    var documents = [FountainParser().parse(text), MarkdownParser().parse(text)]
    if let fdx = try? FDXParser().parse(text) { documents.append(fdx) }
    for doc in documents {
        for (i, element) in doc.elements.enumerated() {
            _ = element.plainText
            precondition(element.orderIndex >= 1, "orderIndex must start at 1 (element \(i))")
        }
        _ = DocumentJSON.encode(doc)
        let fountain = FountainWriter().write(doc)
        _ = FountainParser().parse(fountain)
        let fdx = FDXWriter().write(doc)
        // The FDX writer's output must always be well-formed XML that the parser accepts.
        do {
            _ = try FDXParser().parse(fdx)
        } catch {
            preconditionFailure("FDX writer produced unreadable XML: \(error)")
        }
    }
    return 0
}
