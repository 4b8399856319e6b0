import Foundation
import RepartoTestSupport
import Speech
import Testing

/// `reparto cast FILE [--json]`: the proposed cast with its evidence, locally, as a cast file
/// that casts the same way when passed back; bad input is one error line.
@Suite("reparto cast", .serialized, .timeLimit(.minutes(2)))
struct CastCommandTests {
    static let script = """
        INT. KITCHEN - NIGHT

        SANDRA (60s), his wife, pours tea. EDWARD, a tall man, reads.

        SANDRA
        Tea?

        EDWARD
        Please.

        YOUNG EDWARD (10)
        Me too!
        """

    @Test func printsAnEditableCastFileWithTheEvidence() async throws {
        let script = try CLIDocumentedTests.temporaryFile("kitchen.fountain", Self.script)
        defer { try? FileManager.default.removeItem(at: script.deletingLastPathComponent()) }
        let environment = ProcessInfo.processInfo.environment
        let yaml = try await RepartoProcess.run(["cast", script.path, "--provider", "espeak-ng"], environment: environment)
        #expect(yaml.status == 0, "\(yaml.stderr)")
        #expect(yaml.stdout.contains("# SANDRA — 1 line; female"))
        #expect(yaml.stdout.contains("introduction: \"SANDRA (60s), his wife, pours tea\""))
        #expect(yaml.stdout.contains("# YOUNG EDWARD — 1 line; is EDWARD"))

        // The YAML is a cast file: read back, it names every cue, and passed back it casts the same way.
        let saved = script.deletingLastPathComponent().appendingPathComponent("cast.yaml")
        try Data(yaml.stdout.utf8).write(to: saved)
        let overrides = try CastOverrides.load(from: saved)
        #expect(Set(overrides.characters.keys) == ["SANDRA", "EDWARD", "YOUNG EDWARD"])
        #expect(overrides.characters["YOUNG EDWARD"] == overrides.characters["EDWARD"])
        let again = try await RepartoProcess.run(["cast", script.path, "--provider", "espeak-ng", "--cast", saved.path, "--json"],
                                                 environment: environment)
        #expect(again.status == 0, "\(again.stderr)")
        let json = try JSONSerialization.jsonObject(with: Data(again.stdout.utf8)) as? [String: Any]
        #expect(json?["characters"] as? [String: String] == overrides.characters)
        let choices = json?["choices"] as? [[String: Any]] ?? []
        #expect(choices.allSatisfy { $0["tier"] as? String == "cast-file" || $0["tier"] as? String == "same-identity" })
        #expect(choices.first { $0["name"] as? String == "YOUNG EDWARD" }?["options"] != nil, "the age adjustment stays")
    }

    @Test func badInputIsOneErrorLine() async throws {
        let environment = ProcessInfo.processInfo.environment
        let missing = try await RepartoProcess.run(["cast", "/nonexistent/script.fountain"], environment: environment)
        #expect(missing.status != 0)
        #expect(missing.stderr.split(separator: "\n").count == 1 && missing.stderr.hasPrefix("Error: "), "\(missing.stderr)")
        let script = try CLIDocumentedTests.temporaryFile("s.fountain", Self.script)
        defer { try? FileManager.default.removeItem(at: script.deletingLastPathComponent()) }
        let unknown = try await RepartoProcess.run(["cast", script.path, "--voice", "SANDRA=espeak-ng:nope"], environment: environment)
        #expect(unknown.status != 0)
        #expect(unknown.stderr.hasPrefix("Error: cast: unknown voice"), "\(unknown.stderr)")
        #expect(unknown.stderr.split(separator: "\n").count == 1)
    }
}
