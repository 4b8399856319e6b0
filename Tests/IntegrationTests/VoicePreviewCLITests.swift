import Foundation
import RepartoTestSupport
import Speech
import Testing

/// `reparto voices preview`: a sample in one voice, through the built binary.
@Suite("reparto voices preview", .timeLimit(.minutes(2)))
struct VoicePreviewCLITests {
    /// This process's environment without an espeak-ng stand-in, in a folder of its own.
    private func scratch() throws -> (environment: [String: String], folder: URL) {
        var environment = ProcessInfo.processInfo.environment
        environment["ESPEAK_NG_PATH"] = nil
        environment["REPARTO_ESPEAK_ENGINE"] = nil
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("preview-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        return (environment, folder)
    }

    private func expectOneErrorLine(_ output: RepartoProcess.Output, mentioning text: String,
                                    sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(output.status != 0, sourceLocation: sourceLocation)
        let lines = output.stderr.split(separator: "\n").filter { !$0.isEmpty }
        #expect(lines.count == 1 && lines.first?.hasPrefix("Error: ") == true && lines.first?.contains(text) == true,
                "stderr: \(output.stderr)", sourceLocation: sourceLocation)
    }

    @Test func aFliteVoiceIsFoundWithoutNamingItsProviderAndAFileIsNotReplacedWithoutForce() async throws {
        let (environment, folder) = try scratch()
        defer { try? FileManager.default.removeItem(at: folder) }
        let first = try await RepartoProcess.run(["voices", "preview", "slt"], environment: environment, directory: folder)
        #expect(first.status == 0, "stderr: \(first.stderr)")
        let file = folder.appendingPathComponent("preview-slt.wav")
        let audio = try Data(contentsOf: file)
        let levels = try AudioLevels(wav: audio)
        #expect(try WAVHeader(parsing: audio).format.sampleRate == 16000)
        #expect(levels.duration > 2 && levels.rmsDBFS > -35)
        #expect(first.stdout.contains("preview-slt.wav") && first.stdout.contains(String(format: "%.2f s", levels.duration))
                && first.stdout.contains("flite"), "\(first.stdout)")

        let again = try await RepartoProcess.run(["voices", "preview", "slt", "--text", "Another take."], environment: environment,
                                                 directory: folder)
        expectOneErrorLine(again, mentioning: "exists")
        let kept = try Data(contentsOf: file) == audio
        #expect(kept)

        let forced = try await RepartoProcess.run(["voices", "preview", "slt", "--text", "Another take.", "--force"],
                                                  environment: environment, directory: folder)
        #expect(forced.status == 0, "stderr: \(forced.stderr)")
        #expect(try AudioLevels(wav: Data(contentsOf: file)).duration < levels.duration)
    }

    @Test func anEspeakVariantSpeaksTheGivenTextIntoTheGivenFile() async throws {
        let (environment, folder) = try scratch()
        defer { try? FileManager.default.removeItem(at: folder) }
        let file = folder.appendingPathComponent("alicia.wav")
        let output = try await RepartoProcess.run(["voices", "preview", "en-us+Alicia", "--text", "Places, everyone.", "-o", file.path],
                                                  environment: environment, directory: folder)
        #expect(output.status == 0, "stderr: \(output.stderr)")
        #expect(output.stdout.contains("espeak-ng"), "\(output.stdout)")
        #expect(try AudioLevels(wav: Data(contentsOf: file)).duration > 0.5)
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path) == ["alicia.wav"])
    }

    @Test func unknownVoicesAndProvidersAreOneErrorLineAndWriteNothing() async throws {
        let (environment, folder) = try scratch()
        defer { try? FileManager.default.removeItem(at: folder) }
        expectOneErrorLine(try await RepartoProcess.run(["voices", "preview", "klingon"], environment: environment, directory: folder),
                           mentioning: "unknown voice 'klingon'")
        expectOneErrorLine(try await RepartoProcess.run(["voices", "preview", "slt", "--provider", "no-such-provider"],
                                                        environment: environment, directory: folder),
                           mentioning: "unknown voice provider 'no-such-provider'")
        expectOneErrorLine(try await RepartoProcess.run(["voices", "preview", "slt", "--provider", "espeak-ng"],
                                                        environment: environment, directory: folder),
                           mentioning: "unknown voice 'slt' for provider espeak-ng")
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path).isEmpty)
    }
}
