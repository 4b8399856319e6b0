import Foundation
import Screenplay
import Speech

/// Hand labels for real screenplays: each script's source (repository, path, commit), the gender
/// of its main characters and the cues that are one person (`bench/casting/labels.json`).
public struct CastingLabels: Codable, Sendable {
    public struct Script: Codable, Sendable {
        /// The file name in the corpus folder.
        public var file: String
        public var title: String
        /// Where the script comes from: `owner/name`, path and commit on GitHub.
        public var repo: String
        public var path: String
        public var commit: String
        /// Person (the identity's cue) → gender, for every person with 10 lines or more.
        public var genders: [String: Gender]
        /// Cue → the person it is (`YOUNG EDWARD` → `EDWARD`): the merges casting must find. A cue
        /// as written (`WILL (V.O.)(CONT’D)`, `@McCLANE`, `BRICK ^`) is read with the cue parser first.
        public var merges: [String: String]
        /// People with 10 lines or more whose gender the script does not state: not scored.
        public var unstated: [String]?
    }
    public var scripts: [Script]

    /// Reads a labels file.
    /// - Throws: `BenchError` when it cannot be read or decoded.
    public static func load(_ url: URL) throws -> CastingLabels {
        do { return try JSONDecoder().decode(CastingLabels.self, from: Data(contentsOf: url)) } catch {
            throw BenchError("\(url.path): not a casting labels file (\(error))")
        }
    }
}

/// `reparto bench casting`: casts each labelled script and compares with the labels — the share of
/// people with at least ``minimumLines`` lines whose voice has their gender, and the identity
/// merges found — with every miss named.
public enum CastingBenchmark {
    /// People with fewer lines are not scored.
    public static let minimumLines = 10

    /// One script's figures.
    public struct ScriptResult: Codable, Sendable, Hashable {
        public var file: String
        public var title: String
        /// Labelled people with at least ``minimumLines`` lines.
        public var scored: Int
        /// Of those, cast with a voice of their gender.
        public var matched: Int
        /// `NAME: label female, voice male (en-gb+m3)`.
        public var genderMisses: [String]
        public var merges: Int
        public var mergesFound: Int
        /// `YOUNG EDWARD: expected EDWARD, got YOUNG EDWARD`.
        public var mergeMisses: [String]
        /// People with at least ``minimumLines`` lines the labels do not cover.
        public var unlabelled: [String]
    }

    /// Scores `proposal` against `labels`. Pure.
    public static func evaluate(_ proposal: CastProposal, labels: CastingLabels.Script) -> ScriptResult {
        var result = ScriptResult(file: labels.file, title: labels.title, scored: 0, matched: 0, genderMisses: [],
                                  merges: labels.merges.count, mergesFound: 0, mergeMisses: [], unlabelled: [])
        // Lines per labelled person: every cue the labels assign to it.
        var lines: [String: Int] = [:]
        let merges = Dictionary(labels.merges.map { (cueName($0.key), $0.value) }, uniquingKeysWith: { first, _ in first })
        for choice in proposal.choices where choice.kind == .person {
            lines[merges[choice.name] ?? choice.name, default: 0] += choice.lines
        }
        for name in labels.genders.keys.sorted() {
            guard let label = labels.genders[name], (lines[name] ?? 0) >= minimumLines else { continue }
            result.scored += 1
            let choice = proposal.choice(name)
            if let choice, choice.voiceGender == label {
                result.matched += 1
            } else {
                let voice = choice.map { "\($0.voiceGender?.rawValue ?? "neutral") voice \($0.provider):\($0.voice)" } ?? "not cast"
                let read = choice.map { "read \($0.gender?.rawValue ?? "unknown")" } ?? ""
                result.genderMisses.append("\(name): label \(label.rawValue), \(read), \(voice)")
            }
        }
        for cue in labels.merges.keys.sorted() {
            guard let expected = labels.merges[cue] else { continue }
            let got = proposal.choice(cueName(cue))?.identity
            if got == expected { result.mergesFound += 1 } else { result.mergeMisses.append("\(cue): expected \(expected), got \(got ?? "no such cue")") }
        }
        let unstated = Set(labels.unstated ?? [])
        result.unlabelled = lines.filter { $0.value >= minimumLines && labels.genders[$0.key] == nil && !unstated.contains($0.key) }
            .keys.sorted()
        return result
    }

    /// The normalized name of a cue as written (`WILL (V.O.)` → `WILL`).
    static func cueName(_ cue: String) -> String {
        CharacterCue.normalize(CharacterCue(parsing: Substring(cue))?.name ?? cue)
    }

    /// Casts every script of `labels` found in `corpus` with `registry`'s voices and scores it.
    /// - Throws: `BenchError` for a missing or unreadable script.
    public static func run(corpus: URL, labels: CastingLabels, registry: VoiceProviderRegistry,
                           overrides: CastOverrides = CastOverrides()) async throws -> [ScriptResult] {
        var results: [ScriptResult] = []
        for script in labels.scripts {
            let url = corpus.appendingPathComponent(script.file)
            guard let data = FileManager.default.contents(atPath: url.path) else {
                throw BenchError("\(url.path) is missing: fetch the corpus (bench/casting/README.md)")
            }
            let document: ScreenplayDocument
            do { document = try ScreenplayReader.read([UInt8](data), fileName: script.file) } catch {
                throw BenchError("\(url.path): \(error)")
            }
            let proposal = try await CastingDirector.propose(document: document, registry: registry, overrides: overrides)
            results.append(evaluate(proposal, labels: script))
        }
        return results
    }

    /// The report: one block per script, then the totals.
    public static func report(_ results: [ScriptResult]) -> String {
        var out: [String] = []
        func percent(_ a: Int, _ b: Int) -> String { b == 0 ? "–" : String(format: "%.1f %%", Double(a) * 100 / Double(b)) }
        for r in results {
            out.append("\(r.title) (\(r.file))")
            out.append("  gender   \(r.matched)/\(r.scored) people with ≥ \(minimumLines) lines cast with their gender (\(percent(r.matched, r.scored)))")
            out.append("  identity \(r.mergesFound)/\(r.merges) merges found (\(percent(r.mergesFound, r.merges)))")
            for miss in r.genderMisses { out.append("  miss     \(miss)") }
            for miss in r.mergeMisses { out.append("  miss     \(miss)") }
            if !r.unlabelled.isEmpty { out.append("  unlabelled: \(r.unlabelled.joined(separator: ", "))") }
        }
        let scored = results.reduce(0) { $0 + $1.scored }, matched = results.reduce(0) { $0 + $1.matched }
        let merges = results.reduce(0) { $0 + $1.merges }, found = results.reduce(0) { $0 + $1.mergesFound }
        out.append("total: gender \(matched)/\(scored) (\(percent(matched, scored))), identity \(found)/\(merges) (\(percent(found, merges)))")
        return out.joined(separator: "\n") + "\n"
    }
}
