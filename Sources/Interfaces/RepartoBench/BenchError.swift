/// A benchmark failure, reported as one line (the CLI prints its description).
public struct BenchError: Error, CustomStringConvertible, Sendable {
    /// The line to report.
    public let description: String

    /// A failure described by `description`.
    public init(_ description: String) { self.description = description }
}
