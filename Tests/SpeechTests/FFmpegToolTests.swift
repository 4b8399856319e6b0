#if canImport(Glibc)
import Glibc
#endif
import Foundation
import RepartoTestSupport
@testable import Speech
import Testing

/// FFmpegTool runs under a deadline with stand-ins for ffmpeg that misbehave as a broken build
/// or a hostile input could make it: hang, leave a process behind, print without end.
@Suite("ffmpeg under a deadline", .timeLimit(.minutes(1)))
struct FFmpegToolTests {
    /// A folder with an executable `ffmpeg` running `script` (sh), removed at the end.
    struct FakeFFmpeg {
        let directory: URL
        var tool: FFmpegTool { FFmpegTool(executable: directory.appendingPathComponent("ffmpeg")) }
        var pidFile: URL { directory.appendingPathComponent("pid") }

        init(_ script: String) throws {
            directory = FileManager.default.temporaryDirectory.appendingPathComponent("fake-ffmpeg-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            try ExecutableScript.write("#!/bin/sh\n\(script)\n", to: directory.appendingPathComponent("ffmpeg"))
        }

        /// The pid the script wrote to `$DIR/pid`.
        func recordedPID() throws -> pid_t {
            let text = try String(contentsOf: pidFile, encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines)
            return try #require(pid_t(text))
        }

        func remove() { try? FileManager.default.removeItem(at: directory) }
    }

    @Test func aHungRunIsKilledAtItsDeadlineAndFails() throws {
        let fake = try FakeFFmpeg("echo $$ > \"$(dirname \"$0\")/pid\"; exec sleep 600")
        defer { fake.remove() }
        let tool = fake.tool.withTimeout(.seconds(1))
        #expect(throws: AudioToolError(description: "ffmpeg did not finish within 1 s, so it was stopped")) { try tool.run(["-i", "x"]) }
        // Killed and reaped: no such process is left.
        #expect(kill(try fake.recordedPID(), 0) == -1 && errno == ESRCH)
    }

    @Test func oneThatClosesStandardErrorAndRunsOnIsKilledAtItsDeadlineToo() throws {
        let fake = try FakeFFmpeg("echo $$ > \"$(dirname \"$0\")/pid\"; echo 'going quiet' >&2; exec 2>&-; exec sleep 600")
        defer { fake.remove() }
        let out = try ProcessRunner.runBounded(executable: fake.tool.executable, arguments: [], timeout: .seconds(1))
        #expect(out.timedOut && out.status == 128 + SIGKILL)
        #expect(String(decoding: out.stderr, as: UTF8.self) == "going quiet\n")
        #expect(kill(try fake.recordedPID(), 0) == -1 && errno == ESRCH)
    }

    @Test func aProcessLeftBehindDoesNotHoldTheRun() throws {
        // The stand-in exits at once but leaves a sleeper with the null device for its output:
        // the run ends with the stand-in, not with the sleeper (Foundation's Process would wait
        // for every holder of a socket the sleeper inherits).
        let fake = try FakeFFmpeg("sleep 600 </dev/null >/dev/null 2>&1 & echo $! > \"$(dirname \"$0\")/pid\"; echo 'a warning' >&2; exit 0")
        defer {
            if let pid = try? fake.recordedPID() { kill(pid, SIGKILL) }
            fake.remove()
        }
        let tool = fake.tool.withTimeout(.seconds(50))
        let stderr = try tool.run([])
        #expect(stderr == "a warning\n")
        #expect(kill(try fake.recordedPID(), 0) == 0, "the sleeper still runs, so the run did not wait for it")
    }

    @Test func aFailureNamesTheExitStatusAndTheLastLines() throws {
        let fake = try FakeFFmpeg("echo first >&2; echo second >&2; echo 'Conversion failed!' >&2; exit 3")
        defer { fake.remove() }
        #expect(throws: AudioToolError(description: "ffmpeg exited with 3: second / Conversion failed!")) { try fake.tool.run([]) }
    }

    @Test func endlessStandardErrorKeepsOnlyItsEnd() throws {
        let fake = try FakeFFmpeg("head -c 5000000 /dev/zero | tr '\\0' x >&2; echo >&2; echo 'the summary' >&2")
        defer { fake.remove() }
        let out = try ProcessRunner.runBounded(executable: fake.tool.executable, arguments: [], timeout: .seconds(50), stderrLimit: 64 * 1024)
        #expect(out.status == 0 && !out.timedOut)
        #expect(out.stderr.count == 64 * 1024)
        #expect(String(decoding: out.stderr, as: UTF8.self).hasSuffix("x\nthe summary\n"))
    }

    @Test func aMissingExecutableIsAnErrorNotACrash() {
        let tool = FFmpegTool(executable: URL(fileURLWithPath: "/nonexistent/ffmpeg"))
        #expect(throws: AudioToolError.self) { try tool.run([]) }
    }

    @Test(.enabled(if: FileManager.default.fileExists(atPath: "/proc/self/fd")))
    func boundedRunsCloseWhatTheyOpen() throws {
        let runs = 100
        let witness = ProcessRunner.DescriptorWitness()
        try ProcessRunner.$witness.withValue(witness) {
            for _ in 0..<runs {
                let out = try ProcessRunner.runBounded(executable: URL(fileURLWithPath: "/bin/true"), arguments: [], timeout: .seconds(50))
                #expect(out.status == 0)
            }
        }
        let opened = witness.identities.count
        let stillOpen = witness.identities.intersection(ProcessRunnerTests.openIdentities()).count
        #expect(opened >= runs)
        #expect(stillOpen == 0, "\(stillOpen) of the \(opened) descriptors the runs opened stayed open")
    }
}
