#if canImport(Glibc)
import Glibc
#endif
import Foundation
import Threading

/// Several synthesizers of the linked engines (libespeak-ng, flite) for one process:
/// ``SpeechHelper`` child processes, each fed one line at a time by a thread of this pool that
/// owns it.
///
/// Each engine speaks one line at a time per process (``EspeakLibrary``, ``FliteLibrary``), which
/// is enough for a worker process but not for a process running several workers (`reparto run`):
/// there, a pool of `size` helpers speaks `size` lines at once, of either engine, while every
/// helper keeps its voice data loaded. A helper that dies is started again for the next line; the
/// line it was speaking fails with ``SpeechError/engineFailed(provider:exitCode:message:)``.
/// Helpers end when their standard input closes, so they never outlive this process.
public final class SpeechHelperPool: Sendable {
    /// How many helpers run (at most; they start on first use).
    public let size: Int
    private let threads: DedicatedThreads<(frame: Data, engine: EngineRequest.Engine), LibraryAudio>

    /// - Parameters:
    ///   - executable: the helper program (`reparto`, with `arguments` `["speech-helper"]`).
    ///   - size: helpers, one line each at a time.
    public init(executable: URL, arguments: [String], size: Int) {
        self.size = max(1, size)
        threads = DedicatedThreads(count: size, name: "reparto-speech") {
            var helper: Helper?
            return { work, _ in
                do {
                    if helper == nil { helper = try Helper.start(executable: executable, arguments: arguments) }
                    return try helper!.speak(work.frame, engine: work.engine)
                } catch {
                    let status = helper?.stop() ?? -1
                    helper = nil
                    return .failure(SpeechError.engineFailed(provider: work.engine.providerID, exitCode: status,
                                                             message: "synthesizer helper: \(error)"))
                }
            }
        }
    }

    /// Speaks `request` on the next free helper (same contract as ``EspeakLibrary`` and
    /// ``FliteLibrary``; cancelling skips a line still queued).
    public func synthesize(_ request: EngineRequest) async throws -> LibraryAudio {
        try await threads.run((SpeechHelper.Wire.request(request), request.engine))
    }

    /// Why a helper could not be started or stopped answering.
    struct HelperFailure: Error, CustomStringConvertible {
        var description: String
    }

    /// One running helper process and our ends of its pipes.
    private struct Helper {
        var pid: pid_t
        var input: Int32
        var output: Int32

        @available(*, noasync)
        static func start(executable: URL, arguments: [String]) throws -> Helper {
            _ = ProcessRunner.ignoreSIGPIPE  // a helper that died must fail our write, not end this process
            var inPipe: [Int32] = [-1, -1], outPipe: [Int32] = [-1, -1]
            guard ProcessRunner.makePipe(&inPipe), ProcessRunner.makePipe(&outPipe) else {
                for fd in inPipe + outPipe where fd >= 0 { close(fd) }
                throw HelperFailure(description: "cannot create pipes: \(String(cString: strerror(errno)))")
            }
            let pid: pid_t
            do {
                pid = try ProcessRunner.spawn(executable.path, arguments: arguments, stdin: inPipe[0], stdout: outPipe[1], stderr: 2)
            } catch {
                for fd in inPipe + outPipe { close(fd) }
                throw HelperFailure(description: "\(error)")
            }
            close(inPipe[0])
            close(outPipe[1])
            return Helper(pid: pid, input: inPipe[1], output: outPipe[0])
        }

        /// Sends one request frame and reads the answer.
        @available(*, noasync)
        func speak(_ frame: Data, engine: EngineRequest.Engine) throws -> Result<LibraryAudio, any Error> {
            typealias Wire = SpeechHelper.Wire
            guard Wire.write(input, frame) else { throw HelperFailure(description: "it stopped reading") }
            guard let header = Wire.read(output, count: Wire.responseHeader) else { throw HelperFailure(description: "it stopped answering") }
            let status = Wire.u32(header, 0), sampleRate = Int(Wire.u32(header, 4))
            guard let payload = Wire.read(output, count: Int(Wire.u32(header, 8))) else {
                throw HelperFailure(description: "it stopped mid-answer")
            }
            switch status {
            case 0: return .success(LibraryAudio(pcm: payload, sampleRate: sampleRate))
            case 1: return .failure(SpeechError.unknownVoice(String(decoding: frameVoice(frame), as: UTF8.self), provider: engine.providerID))
            default: return .failure(SpeechError.engineError(provider: engine.providerID, message: String(decoding: payload, as: UTF8.self)))
            }
        }

        private func frameVoice(_ frame: Data) -> Data {
            let start = frame.startIndex + SpeechHelper.Wire.requestHeader
            return frame.subdata(in: start..<(start + Int(SpeechHelper.Wire.u32(frame, 4))))
        }

        /// Closes the pipes (the helper exits at end of input), kills it in case it hangs, reaps it.
        @available(*, noasync)
        func stop() -> Int32 {
            close(input)
            close(output)
            kill(pid, SIGKILL)
            var status: Int32 = 0
            while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
            return (status & 0x7f) == 0 ? (status >> 8) & 0xff : 128 + (status & 0x7f)
        }
    }
}
