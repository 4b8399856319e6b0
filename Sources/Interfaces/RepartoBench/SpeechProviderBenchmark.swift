import ProductionKit
import Dispatch
import Foundation
import Speech

/// `reparto bench speech` without `--cluster`: synthesizes the same lines through Reparto's
/// `EspeakProvider` and by running `espeak-ng` directly (one `Process` per line, waited for on a
/// plain thread), alternating rounds, and reports the medians and the overhead. Meant to run
/// pinned to one core (`taskset -c 0`, see bench/speech/run.sh).
public struct SpeechProviderBenchmark: Sendable {
    /// The lines to speak.
    public var lines: [String]
    /// The espeak-ng voice.
    public var voice: String
    /// Rounds per side (the median round is reported).
    public var rounds: Int

    /// A benchmark of `lines` spoken in `voice`, `rounds` rounds per side.
    public init(lines: [String], voice: String, rounds: Int) {
        self.lines = lines
        self.voice = voice
        self.rounds = rounds
    }

    /// Runs both sides and returns the report (tab-separated lines, each ending in a newline).
    public func run() async throws -> String {
        let texts = lines
        let provider = EspeakProvider()
        guard provider.isConfigured else { throw SpeechError.notConfigured(provider: provider.id, hint: provider.configurationHint) }
        _ = try await provider.synthesize(text: "warm up", voice: voice, language: nil, options: .standard)  // voice list cached

        var direct: [Double] = [], reparto: [Double] = [], directCPU: [Double] = [], repartoCPU: [Double] = []
        var directBytes = 0, repartoBytes = 0
        for _ in 0..<rounds {  // alternate the sides so load changes hit both
            let c0 = CPUTime.selfAndChildren(), t0 = DispatchTime.now().uptimeNanoseconds
            directBytes = try await Self.runDirect(executable: provider.executable, voice: voice, texts: texts)
            let c1 = CPUTime.selfAndChildren(), t1 = DispatchTime.now().uptimeNanoseconds
            repartoBytes = 0
            for text in texts {
                repartoBytes += try await provider.synthesize(text: text, voice: voice, language: nil, options: .standard).data.count
            }
            let c2 = CPUTime.selfAndChildren(), t2 = DispatchTime.now().uptimeNanoseconds
            direct.append(Double(t1 - t0) / 1e9)
            reparto.append(Double(t2 - t1) / 1e9)
            directCPU.append(c1 - c0)
            repartoCPU.append(c2 - c1)
        }
        func median(_ xs: [Double]) -> Double { xs.sorted()[xs.count / 2] }
        let d = median(direct), r = median(reparto), dc = median(directCPU), rc = median(repartoCPU)
        let n = Double(texts.count)
        return """
            lines\t\(texts.count)\trounds\t\(rounds)\t(medians; cpu = user+system incl. espeak-ng children)
            direct\twall_s\t\(String(format: "%.3f", d))\tms/line\t\(String(format: "%.2f", d * 1000 / n))\tcpu_s\t\(String(format: "%.3f", dc))\tbytes\t\(directBytes)
            reparto\twall_s\t\(String(format: "%.3f", r))\tms/line\t\(String(format: "%.2f", r * 1000 / n))\tcpu_s\t\(String(format: "%.3f", rc))\tbytes\t\(repartoBytes)
            overhead_pct\twall\t\(String(format: "%.1f", (r / d - 1) * 100))\tcpu\t\(String(format: "%.1f", (rc / dc - 1) * 100))

            """
    }

    /// The baseline: one blocking `Process` per line on a thread of its own, text on stdin, WAV read from stdout.
    static func runDirect(executable: URL, voice: String, texts: [String]) async throws -> Int {
        try await withCheckedThrowingContinuation { continuation in
            Thread.detachNewThread {
                do {
                    var bytes = 0
                    for text in texts {
                        bytes += try ChildProcess.byteCount((executable.path, ["--stdout", "-v", voice]), input: Data(text.utf8))
                    }
                    continuation.resume(returning: bytes)
                } catch {
                    continuation.resume(throwing: error)
                }
            }
        }
    }
}
