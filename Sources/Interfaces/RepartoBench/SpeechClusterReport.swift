import Foundation

extension SpeechClusterBench {
    /// The report of a whole run: the overhead tables, the scaling table and the audit.
    func report(samples: [String: [Sample]], audit: Audit, load: (String, String)) -> String {
        var out = ""
        func print(_ line: String) { out += line + "\n" }
        func median(_ phase: String, _ value: (Sample) -> Double) -> Double {
            let xs = (samples[phase] ?? []).map(value).sorted()
            return xs.isEmpty ? .nan : xs[xs.count / 2]
        }
        let n = Double(lines.count)
        let wall = { (phase: String) in median(phase, \.wall) }
        let cpu = { (phase: String) in median(phase, \.cpu) }
        func pct(_ x: Double, _ base: Double) -> String { String(format: "%+.1f %%", (x / base - 1) * 100) }
        print("speech bench: \(lines.count) distinct lines, voice \(voice), \(rounds) round(s) (medians), "
              + "generate jobs of \(batch) lines, worker concurrency \(workerConcurrency), pinned: \(pin ? "yes" : "no")")
        print("load average before: \(load.0)   after: \(load.1)")
        print("")
        func overheadTable(_ title: String, against base: String, _ rows: [(String, String)]) {
            print(title.padding(toLength: 40, withPad: " ", startingAt: 0) + "  wall s   ms/line    cpu s   overhead wall / cpu")
            for (label, phase) in rows {
                let overhead = phase == base ? "" : "\(pct(wall(phase), wall(base))) / \(pct(cpu(phase), cpu(base)))"
                print(label.padding(toLength: 40, withPad: " ", startingAt: 0)
                      + String(format: "%8.3f  %8.2f  %7.3f   ", wall(phase), wall(phase) * 1000 / n, cpu(phase)) + overhead)
            }
        }
        overheadTable("one core (CPU 0)", against: "direct1", [("espeak-ng directly (bash loop)", "direct1"),
                                                               ("reparto speak --lines", "speak"), ("reparto cluster, 1 worker", "worker1")])
        if samples["library1"] != nil {
            print("")
            overheadTable("against libespeak-ng called directly", against: "library1", [
                ("libespeak-ng directly (C loop)", "library1"), ("reparto speak --lines", "speak"), ("reparto cluster, 1 worker", "worker1"),
            ])
        }
        print("")
        print(String(format: "servers (PostgreSQL + RabbitMQ, approx., shared) during the 1-worker runs: %.3f s CPU (%.2f ms/line)",
                     median("worker1", \.servers), median("worker1", \.servers) * 1000 / n))
        print("")
        print("scaling                                   wall s   lines/s    cpu s   speed-up")
        for (label, phase, base) in [("espeak-ng directly, 1 process", "direct1", "direct1"),
                                     ("espeak-ng directly, 2 processes", "direct2", "direct1"),
                                     ("libespeak-ng directly, 1 process", "library1", "library1"),
                                     ("libespeak-ng directly, 2 processes", "library2", "library1"),
                                     ("reparto, 1 worker", "worker1", "worker1"),
                                     ("reparto, 2 workers", "worker2", "worker1")] {
            guard samples[phase] != nil else { continue }
            print(label.padding(toLength: 40, withPad: " ", startingAt: 0)
                  + String(format: "%8.3f  %8.1f  %7.3f   %.2f×", wall(phase), n / wall(phase), cpu(phase), wall(base) / wall(phase)))
        }
        print("")
        print("generate runs: \(audit.lines) lines, \(audit.distinctKeys) distinct content keys, \(audit.reused) reused, "
              + "\(audit.rows) generated_content rows inserted, \(audit.failed) failed jobs")
        print("per round (wall s): " + ["direct1", "speak", "worker1", "direct2", "worker2", "library1", "library2"].filter { samples[$0] != nil }.map { phase in
            "\(phase) " + (samples[phase] ?? []).map { String(format: "%.2f", $0.wall) }.joined(separator: ",")
        }.joined(separator: "  "))
        return out
    }
}
