import Screenplay

/// Times ``ScreenplayReader/read(_:fileName:format:options:)`` on bytes already in memory.
/// Used by `reparto bench parse` and `bench/parse/runner`; no I/O happens in the timed loop.
public struct ParseBenchmark: Sendable {
    /// The timing of one input.
    public struct Result: Sendable, Hashable {
        /// Input size in bytes.
        public var bytes: Int
        /// Elements produced by one parse.
        public var elements: Int
        /// Mean time per parse, milliseconds.
        public var meanMilliseconds: Double
        /// Median time per parse, milliseconds.
        public var medianMilliseconds: Double
        /// Throughput at the mean time, megabytes (10^6 bytes) per second.
        public var megabytesPerSecond: Double { Double(bytes) / 1e6 / (meanMilliseconds / 1e3) }
    }

    /// Timed iterations.
    public var iterations: Int
    /// Untimed warm-up iterations.
    public var warmup: Int

    /// Creates a benchmark.
    public init(iterations: Int = 100, warmup: Int = 5) {
        self.iterations = max(1, iterations)
        self.warmup = max(0, warmup)
    }

    /// Parses `bytes` `warmup + iterations` times and reports the timed ones.
    /// Throws the parser's error if the input does not parse.
    public func run(_ bytes: [UInt8], fileName: String?) throws(ScreenplayError) -> Result {
        let options = ParseOptions(maxBytes: max(ParseOptions.defaultMaxBytes, bytes.count))
        var elements = try ScreenplayReader.read(bytes, fileName: fileName, options: options).elements.count
        for _ in 0..<warmup { elements = try ScreenplayReader.read(bytes, fileName: fileName, options: options).elements.count }
        var samples: [Double] = []
        samples.reserveCapacity(iterations)
        let clock = ContinuousClock()
        for _ in 0..<iterations {
            let start = clock.now
            let doc = try ScreenplayReader.read(bytes, fileName: fileName, options: options)
            let elapsed = start.duration(to: clock.now)
            elements = doc.elements.count
            samples.append(Double(elapsed.components.seconds) * 1e3 + Double(elapsed.components.attoseconds) / 1e15)
        }
        samples.sort()
        let mean = samples.reduce(0, +) / Double(samples.count)
        let mid = samples.count / 2
        let median = samples.count % 2 == 1 ? samples[mid] : (samples[mid - 1] + samples[mid]) / 2
        return Result(bytes: bytes.count, elements: elements, meanMilliseconds: mean, medianMilliseconds: median)
    }

    /// The tab-separated header matching ``line(file:result:)``.
    public static let header = "file\tbytes\telements\tmean_ms\tmedian_ms\tMB/s"

    /// One tab-separated result line.
    public static func line(file: String, result: Result) -> String {
        "\(file)\t\(result.bytes)\t\(result.elements)\t\(fixed(result.meanMilliseconds, 3))\t\(fixed(result.medianMilliseconds, 3))\t\(fixed(result.megabytesPerSecond, 1))"
    }

    static func fixed(_ value: Double, _ digits: Int) -> String {
        var scale = 1.0
        for _ in 0..<digits { scale *= 10 }
        let scaled = (value * scale).rounded()
        let whole = Int(scaled / scale)
        let frac = Int(abs(scaled) - abs(Double(whole)) * scale)
        let fracText = String(frac)
        return "\(whole)." + String(repeating: "0", count: max(0, digits - fracText.count)) + fracText
    }
}
