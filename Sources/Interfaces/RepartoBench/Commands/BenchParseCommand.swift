import ArgumentParser
import CommandOptions
import TerminalText

/// `reparto bench parse FILE... [--iterations N]`: times the screenplay parser on each file
/// (each file is read once, before timing) and prints mean and median milliseconds and MB/s.
public struct BenchParseCommand: AsyncParsableCommand {
    public static let configuration = CommandConfiguration(
        commandName: "parse",
        abstract: "Benchmark the screenplay parser on one or more files."
    )

    @Argument(help: "Screenplay files (Fountain, FDX, Markdown).") var files: [String]
    @Option(name: .long, help: "Timed iterations per file.") var iterations: Int = 100
    @Option(name: .long, help: "Untimed warm-up iterations per file.") var warmup: Int = 5

    public init() {}

    public func validate() throws {
        guard iterations > 0 else { throw ValidationError("--iterations must be at least 1") }
        guard !files.isEmpty else { throw ValidationError("give at least one file") }
    }

    public func run() async throws {
        print(ParseBenchmark.header)
        let benchmark = ParseBenchmark(iterations: iterations, warmup: warmup)
        for path in files {
            let bytes = try InputFile.read(path, maxBytes: Int.max - 1)
            do {
                let result = try benchmark.run(bytes, fileName: path)
                print(ParseBenchmark.line(file: path, result: result))
            } catch {
                throw CLIError("\(path): \(error)")
            }
        }
    }
}
