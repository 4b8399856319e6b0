import Foundation
import Speech
import TableRead

/// Piper's own command line (`python -m piper` of piper-tts 1.8) as someone speaking a script by
/// hand would run it: one process per share of a voice's lines, loading the model once and writing
/// one WAV per input line (`-i FILE -d DIRECTORY`, files named by a monotonic timestamp, so their
/// names sort in the order spoken).
struct PiperCommandLine {
    /// The Python with `piper-tts` installed.
    var python: URL
    /// The voices the lines are cast with.
    var catalog: PiperVoiceCatalog

    /// One process's work: its lines (indexes into the script's lines, in order), the text file it
    /// reads and the directory it writes.
    struct Share {
        var lineIndexes: [Int]
        var input: URL
        var output: URL
        var command: (String, [String])
    }

    /// The Python and voices Reparto's Piper engine would use with `environment`.
    /// - Throws: ``BenchError`` when there is no Python with Piper or no voice.
    init(environment: [String: String]) throws {
        let configuration = PiperConfiguration(environment: environment)
        if let problem = configuration.problem { throw BenchError(problem) }
        guard let python = configuration.python else {
            throw BenchError("no Python with piper-tts: run scripts/services up or set \(PiperConfiguration.pythonVariable)")
        }
        self.python = python
        self.catalog = PiperVoiceCatalog.scan(configuration.voicePaths)
    }

    /// The shares of `lines`: grouped by voice (in order of first appearance), each voice's lines
    /// split into `processes` contiguous shares (``LineShares``); writes each share's text file
    /// under `directory`.
    func plan(_ lines: [TableReadLine], processes: Int, directory: URL) throws -> [Share] {
        var order: [String] = []
        var byVoice: [String: [Int]] = [:]
        for (index, line) in lines.enumerated() {
            if byVoice[line.voice] == nil { order.append(line.voice) }
            byVoice[line.voice, default: []].append(index)
        }
        var shares: [Share] = []
        for voice in order {
            let indexes = byVoice[voice] ?? []
            let (model, speaker) = try catalog.resolve(voice)
            for range in LineShares.split(indexes.count, into: processes) {
                let name = "\(shares.count)"
                let input = directory.appendingPathComponent("\(name).txt"), output = directory.appendingPathComponent(name)
                let share = Array(indexes[range])
                try (share.map { Self.inputLine(lines[$0].text) }.joined(separator: "\n") + "\n").write(to: input, atomically: true, encoding: .utf8)
                try FileManager.default.createDirectory(at: output, withIntermediateDirectories: true)
                var arguments = ["-m", "piper", "-m", model.modelPath, "-c", model.configPath, "-i", input.path, "-d", output.path]
                if let speaker { arguments += ["-s", "\(speaker)"] }
                shares.append(Share(lineIndexes: share, input: input, output: output, command: (python.path, arguments)))
            }
        }
        return shares
    }

    /// A line as Piper's input file holds it: one line (Piper speaks each input line on its own).
    static func inputLine(_ text: String) -> String {
        text.split(whereSeparator: \.isNewline).joined(separator: " ").trimmingCharacters(in: .whitespaces)
    }

    /// The WAV files each line of `shares` was spoken into, in the order of the script's
    /// `count` lines.
    /// - Throws: ``BenchError`` when a share wrote another number of files than it had lines.
    static func outputs(of shares: [Share], count: Int) throws -> [URL] {
        var files = [URL?](repeating: nil, count: count)
        for share in shares {
            let names = try ordered(FileManager.default.contentsOfDirectory(atPath: share.output.path))
            guard names.count == share.lineIndexes.count else {
                throw BenchError("piper wrote \(names.count) files for \(share.lineIndexes.count) lines in \(share.output.path)")
            }
            for (index, name) in zip(share.lineIndexes, names) { files[index] = share.output.appendingPathComponent(name) }
        }
        return try files.enumerated().map { index, file in
            guard let file else { throw BenchError("no piper output for line \(index + 1)") }
            return file
        }
    }

    /// Piper's output names (`NANOSECONDS.wav`) in the order they were written.
    /// - Throws: ``BenchError`` naming a file that is not named so.
    static func ordered(_ names: [String]) throws -> [String] {
        let stamped = try names.map { name throws -> (UInt64, String) in
            guard name.hasSuffix(".wav"), let stamp = UInt64(name.dropLast(4)) else { throw BenchError("unexpected file from piper: \(name)") }
            return (stamp, name)
        }
        return stamped.sorted { $0.0 < $1.0 }.map(\.1)
    }
}
