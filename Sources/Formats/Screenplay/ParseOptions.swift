/// Limits applied while reading a document.
public struct ParseOptions: Sendable, Hashable {
    /// The default input size limit: 16 MiB.
    public static let defaultMaxBytes = 16 * 1024 * 1024

    /// Inputs larger than this many bytes are rejected with ``ScreenplayError/tooLarge(size:limit:)``.
    public var maxBytes: Int

    /// Creates options with the given size limit.
    public init(maxBytes: Int = ParseOptions.defaultMaxBytes) {
        self.maxBytes = maxBytes
    }
}
