import Foundation
import RepartoTestSupport
import Speech
import Testing

@Suite("reparto speak: libespeak-ng in process", .timeLimit(.minutes(2)))
struct SpeakCommandTests {
    /// The first line a process speaks through the library is byte for byte what the `espeak-ng`
    /// command writes for the same voice, speed and text (later lines differ by milliseconds: the
    /// engine's waveform state carries over, see EspeakProviderTests).
    @Test(arguments: [("en-gb", 1.0), ("en-us+Alicia", 1.4), ("en-gb+klatt", 0.8)])
    func aFreshProcessSaysExactlyWhatTheCommandSays(voice: String, speed: Double) async throws {
        let text = "Interior. Kitchen. Night. She looks at the window and says nothing."
        let output = FileManager.default.temporaryDirectory.appendingPathComponent("speak-\(UUID().uuidString).wav")
        defer { try? FileManager.default.removeItem(at: output) }
        var environment = ProcessInfo.processInfo.environment
        environment["ESPEAK_NG_PATH"] = nil
        environment["REPARTO_ESPEAK_ENGINE"] = nil
        let result = try await RepartoProcess.run(["speak", text, "--voice", voice, "--speed", "\(speed)", "-o", output.path, "--quiet"], environment: environment)
        #expect(result.status == 0, "\(result.stderr)")
        let spoken = try Data(contentsOf: output)

        let command = Process()
        command.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        command.arguments = ["espeak-ng", "--stdout", "-b", "1", "-v", voice, "-s", "\(Int((175 * speed).rounded()))"]
        let stdin = Pipe(), stdout = Pipe()
        command.standardInput = stdin
        command.standardOutput = stdout
        try command.run()
        stdin.fileHandleForWriting.write(Data(text.utf8))
        try stdin.fileHandleForWriting.close()
        let raw = stdout.fileHandleForReading.readDataToEndOfFile()
        command.waitUntilExit()
        #expect(command.terminationStatus == 0)
        let expected = try WAVWriter.normalized(raw).data
        #expect(spoken.count == expected.count)
        let identical = spoken == expected  // a Bool: Swift Testing would diff two 200 kB collections
        #expect(identical, "the library's first line differs from espeak-ng's")
    }
}
