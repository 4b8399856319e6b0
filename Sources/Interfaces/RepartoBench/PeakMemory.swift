import Foundation

/// Peak resident memory (`VmHWM`) of this process and of its live child processes (the speech
/// engines' helpers), read from `/proc`.
enum PeakMemory {
    /// This process's peak, then its children's by command name (`python3 ×2, up to 180 MB each`).
    static func cluster() -> String {
        let me = getpid()
        var children: [String: [Int]] = [:]
        for entry in (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? [] {
            guard let pid = Int32(entry), pid != me,
                  let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
                  let (command, parent) = parse(stat: stat), parent == me else { continue }
            children[command, default: []].append(ImportBenchmark.peakRSS(pid))
        }
        var parts = ["this process \(megabytes(ImportBenchmark.peakRSS(me)))"]
        for (command, peaks) in children.sorted(by: { $0.key < $1.key }) {
            parts.append("\(command) ×\(peaks.count), up to \(megabytes(peaks.max() ?? 0)) each")
        }
        return parts.joined(separator: "; ")
    }

    /// The command name and parent pid of a `/proc/PID/stat` line (the name is in parentheses and
    /// may hold spaces and parentheses itself); nil when it is not one.
    static func parse(stat: String) -> (command: String, parent: Int32)? {
        guard let open = stat.firstIndex(of: "("), let close = stat.lastIndex(of: ")"), open < close else { return nil }
        let fields = stat[stat.index(after: close)...].split(separator: " ")
        guard fields.count >= 2, let parent = Int32(fields[1]) else { return nil }
        return (String(stat[stat.index(after: open)..<close]), parent)
    }

    static func megabytes(_ bytes: Int) -> String { String(format: "%.0f MB", Double(bytes) / 1_048_576) }
}
