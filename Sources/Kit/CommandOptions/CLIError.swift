/// A failure the CLI reports as one line (ArgumentParser prints `Error: <description>`).
public struct CLIError: Error, CustomStringConvertible {
    /// The line printed.
    public let description: String
    /// A failure reported as `description`.
    public init(_ description: String) { self.description = description }
}
