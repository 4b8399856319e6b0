import ArgumentParser
import Dispatch
import Foundation
import Speech
#if canImport(Glibc)
import Glibc
#endif

/// `reparto bench speech [--lines FILE] [--count N] [--rounds R]`: synthesizes the same lines
/// through Reparto's `EspeakProvider` and by running `espeak-ng` directly (one `Process` per
/// line, waited for on a plain thread), alternating rounds, and prints the totals and overhead.
/// Meant to run pinned to one core (`taskset -c 0`, see bench/speech/run.sh).
///
/// With `--cluster`: espeak-ng directly (1 and 2 pinned processes), `reparto speak --lines`, and
/// 1 and 2 pinned `reparto worker` processes running `generate` jobs on the real RabbitMQ and
/// PostgreSQL, in one run (see `SpeechClusterBench`).
public struct BenchSpeechCommand: AsyncParsableCommand {
    public static let configuration = CommandConfiguration(
        commandName: "speech",
        abstract: "Benchmark Reparto's espeak-ng provider against calling espeak-ng directly."
    )

    @Option(name: .long, help: "File with one line of text per line (default: built-in sentences).")
    var lines: String?

    @Option(name: .long, help: "Number of lines when no file is given.")
    var count: Int = 200

    @Option(name: .long, help: "Rounds per side (the median round is reported).")
    var rounds: Int = 3

    @Option(name: .long, help: "espeak-ng voice.")
    var voice: String = "en-us"

    @Flag(name: .long, help: "Also run the lines as generate jobs on the cluster with 1 and 2 pinned workers, against 1 and 2 direct espeak-ng processes.")
    var cluster = false

    @Option(name: .long, help: "With --cluster: lines per generate job.")
    var batch: Int = 5

    @Option(name: .customLong("worker-concurrency"), help: "With --cluster: handlers per worker.")
    var workerConcurrency: Int = 2

    @Flag(name: .customLong("no-pin"), help: "With --cluster: do not pin the processes to CPUs with taskset.")
    var noPin = false

    @OptionGroup var libraryPeer: LibraryPeerOption

    @Option(name: .long, help: "With --cluster: give up on a run after this many seconds.")
    var timeout: Double = 600

    @OptionGroup var clusterOptions: ClusterOptions

    public init() {}

    public func validate() throws {
        guard count > 0, rounds > 0 else { throw ValidationError("--count and --rounds must be at least 1") }
        guard batch >= 1, batch <= 100 else { throw ValidationError("--batch must be between 1 and 100") }
        guard workerConcurrency >= 1 else { throw ValidationError("--worker-concurrency must be at least 1") }
    }

    public func run() async throws {
        if cluster {
            var texts = try lines.map { path in
                try String(contentsOfFile: path, encoding: .utf8).split(whereSeparator: \.isNewline).map(String.init).filter { !$0.isEmpty }
            } ?? BenchSentences.distinct(count)
            var seen = Set<String>()
            texts = texts.filter { seen.insert($0).inserted }  // a repeated line would be reused, not synthesized
            try await SpeechClusterBench(cluster: clusterOptions, lines: texts, voice: voice, rounds: rounds, batch: batch,
                                         workerConcurrency: workerConcurrency, pin: !noPin, timeout: timeout,
                                         libraryPeer: libraryPeer.url).run()
            return
        }
        let texts = try lines.map { path in
            try String(contentsOfFile: path, encoding: .utf8).split(whereSeparator: \.isNewline).map(String.init).filter { !$0.isEmpty }
        } ?? BenchSentences.make(count)
        let provider = EspeakProvider()
        guard provider.isConfigured else { throw SpeechError.notConfigured(provider: provider.id, hint: provider.configurationHint) }
        _ = try await provider.synthesize(text: "warm up", voice: voice, language: nil, options: .standard)  // voice list cached

        var direct: [Double] = [], reparto: [Double] = [], directCPU: [Double] = [], repartoCPU: [Double] = []
        var directBytes = 0, repartoBytes = 0
        for _ in 0..<rounds {  // alternate the sides so load changes hit both
            let c0 = Self.cpuSeconds(), t0 = DispatchTime.now().uptimeNanoseconds
            directBytes = try await Self.runDirect(executable: provider.executable, voice: voice, texts: texts)
            let c1 = Self.cpuSeconds(), t1 = DispatchTime.now().uptimeNanoseconds
            repartoBytes = 0
            for text in texts {
                repartoBytes += try await provider.synthesize(text: text, voice: voice, language: nil, options: .standard).data.count
            }
            let c2 = Self.cpuSeconds(), t2 = DispatchTime.now().uptimeNanoseconds
            direct.append(Double(t1 - t0) / 1e9)
            reparto.append(Double(t2 - t1) / 1e9)
            directCPU.append(c1 - c0)
            repartoCPU.append(c2 - c1)
        }
        func median(_ xs: [Double]) -> Double { xs.sorted()[xs.count / 2] }
        let d = median(direct), r = median(reparto), dc = median(directCPU), rc = median(repartoCPU)
        let n = Double(texts.count)
        print("lines\t\(texts.count)\trounds\t\(rounds)\t(medians; cpu = user+system incl. espeak-ng children)")
        print("direct\twall_s\t\(String(format: "%.3f", d))\tms/line\t\(String(format: "%.2f", d * 1000 / n))\tcpu_s\t\(String(format: "%.3f", dc))\tbytes\t\(directBytes)")
        print("reparto\twall_s\t\(String(format: "%.3f", r))\tms/line\t\(String(format: "%.2f", r * 1000 / n))\tcpu_s\t\(String(format: "%.3f", rc))\tbytes\t\(repartoBytes)")
        print("overhead_pct\twall\t\(String(format: "%.1f", (r / d - 1) * 100))\tcpu\t\(String(format: "%.1f", (rc / dc - 1) * 100))")
    }

    /// User + system CPU seconds of this process and its reaped children.
    static func cpuSeconds() -> Double {
        var me = rusage(), children = rusage()
        getrusage(RUSAGE_SELF.rawValue, &me)
        getrusage(RUSAGE_CHILDREN.rawValue, &children)
        func seconds(_ t: timeval) -> Double { Double(t.tv_sec) + Double(t.tv_usec) / 1e6 }
        return seconds(me.ru_utime) + seconds(me.ru_stime) + seconds(children.ru_utime) + seconds(children.ru_stime)
    }

    /// The baseline: one blocking `Process` per line on a Dispatch thread, text on stdin, WAV read from stdout.
    static func runDirect(executable: URL, voice: String, texts: [String]) async throws -> Int {
        try await withCheckedThrowingContinuation { continuation in
            Thread.detachNewThread {
                do {
                    var bytes = 0
                    for text in texts {
                        let p = Process()
                        p.executableURL = executable
                        p.arguments = ["--stdout", "-v", voice]
                        let input = Pipe(), output = Pipe()
                        p.standardInput = input
                        p.standardOutput = output
                        p.standardError = FileHandle.nullDevice
                        try p.run()
                        try input.fileHandleForWriting.write(contentsOf: Data(text.utf8))
                        try input.fileHandleForWriting.close()
                        bytes += output.fileHandleForReading.readDataToEndOfFile().count
                        p.waitUntilExit()
                    }
                    continuation.resume(returning: bytes)
                } catch {
                    continuation.resume(throwing: error)
                }
            }
        }
    }
}

/// Deterministic screenplay-like sentences for benchmarks.
enum BenchSentences {
    static let subjects = ["Isolde", "The old captain", "Tristan", "A waiter", "The radio", "Marke", "Nobody", "The kettle"]
    static let verbs = ["looks out over", "slowly crosses", "whispers about", "points at", "forgets", "circles back to"]
    static let objects = ["the harbour at night.", "a letter nobody wrote.", "the empty kitchen.", "the last train home.",
                          "three cold cups of tea.", "the storm rolling in from the west."]

    static func make(_ count: Int) -> [String] {
        (0..<count).map { i in
            "\(subjects[i % subjects.count]) \(verbs[(i / 3) % verbs.count]) \(objects[(i / 7) % objects.count])"
        }
    }
}
