import ArgumentParser
import Foundation
import Screenplay

/// `reparto bench parse FILE... [--iterations N]`: times the screenplay parser on each file
/// (the file is read once, before timing) and prints mean and median milliseconds and MB/s.
public struct BenchParseCommand: AsyncParsableCommand {
    public static let configuration = CommandConfiguration(
        commandName: "parse",
        abstract: "Benchmark the screenplay parser on one or more files."
    )

    @Argument(help: "Screenplay files (Fountain, FDX, Markdown).")
    var files: [String]

    @Option(name: .long, help: "Timed iterations per file.")
    var iterations: Int = 100

    @Option(name: .long, help: "Untimed warm-up iterations per file.")
    var warmup: Int = 5

    public init() {}

    public func validate() throws {
        guard iterations > 0 else { throw ValidationError("--iterations must be at least 1") }
        guard !files.isEmpty else { throw ValidationError("give at least one file") }
    }

    public func run() async throws {
        print("file\tbytes\telements\tmean_ms\tmedian_ms\tMB/s")
        for path in files {
            let bytes = try InputFile.read(path, maxBytes: Int.max - 1)
            let options = ParseOptions(maxBytes: max(ParseOptions.defaultMaxBytes, bytes.count))
            var elementCount = 0
            do {
                for _ in 0..<warmup { elementCount = try ScreenplayReader.read(bytes, fileName: path, options: options).elements.count }
            } catch {
                throw ParseFailure(message: "\(path): \(error)")
            }
            var samples: [Double] = []
            samples.reserveCapacity(iterations)
            let clock = ContinuousClock()
            for _ in 0..<iterations {
                let start = clock.now
                let doc = try? ScreenplayReader.read(bytes, fileName: path, options: options)
                let elapsed = clock.now - start
                elementCount = doc?.elements.count ?? 0
                samples.append(Double(elapsed.components.seconds) * 1e3 + Double(elapsed.components.attoseconds) / 1e15)
            }
            samples.sort()
            let mean = samples.reduce(0, +) / Double(samples.count)
            let median = samples.count % 2 == 1 ? samples[samples.count / 2]
                : (samples[samples.count / 2 - 1] + samples[samples.count / 2]) / 2
            let mbps = Double(bytes.count) / 1e6 / (mean / 1e3)
            print("\(path)\t\(bytes.count)\t\(elementCount)\t\(String(format: "%.3f", mean))\t\(String(format: "%.3f", median))\t\(String(format: "%.1f", mbps))")
        }
    }
}
