#if canImport(Glibc)
import Glibc
#endif
import Foundation
import Threading

/// A synthesizer process: libespeak-ng and flite on its main thread, serving ``SpeechHelperPool``
/// requests on standard input and output (`reparto speech-helper`).
///
/// libespeak-ng has one synthesizer per process, and flite's clustergen voices share the C
/// library's random generator (see ``FliteEngine``), so a process that wants several lines spoken
/// at once (`reparto run`, whose workers share the process) starts helpers and gives each one line
/// at a time. Each engine starts on its first request. Frames are little-endian:
///
/// - request: `u32 engine` (0 espeak-ng, 1 flite), `u32 voice bytes, u32 text bytes, i32 rate,
///   i32 pitch, i32 amplitude` (see ``EngineRequest``), then the voice and the text (UTF-8);
/// - response: `u32 status` (0 ok, 1 unknown voice, 2 engine error), `u32 sample rate`,
///   `u32 payload bytes`, then 16-bit mono PCM (ok) or a UTF-8 message.
public enum SpeechHelper {
    /// Serves requests until standard input ends. Returns the process's exit status.
    @available(*, noasync)
    public static func serve(input: Int32 = 0, output: Int32 = 1) -> Int32 {
        var espeak: EspeakEngine?
        let flite = FliteEngine()
        let never = CancellationFlag()
        while true {
            guard let header = Wire.read(input, count: Wire.requestHeader) else { return 0 }  // end of input: the pool is gone
            let voiceCount = Int(Wire.u32(header, 4)), textCount = Int(Wire.u32(header, 8))
            guard let engine = EngineRequest.Engine(rawValue: Wire.u32(header, 0)), voiceCount <= 1 << 10, textCount <= 1 << 24,
                  let voiceBytes = Wire.read(input, count: voiceCount), let textBytes = Wire.read(input, count: textCount) else { return 1 }
            let text = String(decoding: textBytes, as: UTF8.self), voice = String(decoding: voiceBytes, as: UTF8.self)
            let rate = Int(Int32(bitPattern: Wire.u32(header, 12))), pitch = Int(Int32(bitPattern: Wire.u32(header, 16)))
            let amplitude = Int(Int32(bitPattern: Wire.u32(header, 20)))
            let result: Result<LibraryAudio, any Error>
            switch engine {
            case .espeak:
                if espeak == nil { espeak = EspeakEngine.start() }
                result = espeak!.perform(text: text, voice: voice, wordsPerMinute: rate, pitch: pitch, amplitude: amplitude,
                                         cancellation: never)
            case .flite:
                result = flite.perform(text: text, voice: voice, durationStretch: Double(rate) / 1000, pitch: pitch, cancellation: never)
            }
            guard Wire.write(output, Wire.response(result)) else { return 1 }
        }
    }

    /// Frame encoding and blocking I/O on descriptors, shared by the helper and the pool.
    enum Wire {
        static let requestHeader = 24
        static let responseHeader = 12

        static func request(_ request: EngineRequest) -> Data {
            let voiceBytes = Data(request.voice.utf8), textBytes = Data(request.text.utf8)
            var data = Data(capacity: requestHeader + voiceBytes.count + textBytes.count)
            for value in [request.engine.rawValue, UInt32(voiceBytes.count), UInt32(textBytes.count),
                          UInt32(bitPattern: Int32(clamping: request.rate)), UInt32(bitPattern: Int32(clamping: request.pitch)),
                          UInt32(bitPattern: Int32(clamping: request.amplitude))] {
                data.appendLE32(value)
            }
            data.append(voiceBytes)
            data.append(textBytes)
            return data
        }

        static func response(_ result: Result<LibraryAudio, any Error>) -> Data {
            var frame: Data
            switch result {
            case .success(let audio):
                frame = header(status: 0, sampleRate: audio.sampleRate, payload: audio.pcm.count)
                frame.append(audio.pcm)
            case .failure(let error):
                let unknownVoice = (error as? SpeechError).map { if case .unknownVoice = $0 { true } else { false } } ?? false
                let message = Data(((error as? SpeechError).map { "\($0)" } ?? "\(error)").utf8)
                frame = header(status: unknownVoice ? 1 : 2, sampleRate: 0, payload: message.count)
                frame.append(message)
            }
            return frame
        }

        static func header(status: UInt32, sampleRate: Int, payload: Int) -> Data {
            var data = Data(capacity: responseHeader + payload)
            data.appendLE32(status)
            data.appendLE32(UInt32(sampleRate))
            data.appendLE32(UInt32(payload))
            return data
        }

        static func u32(_ data: Data, _ offset: Int) -> UInt32 {
            data.withUnsafeBytes { UInt32(littleEndian: $0.loadUnaligned(fromByteOffset: offset, as: UInt32.self)) }
        }

        /// Exactly `count` bytes, or nil at end of input or on an error.
        @available(*, noasync)
        static func read(_ fd: Int32, count: Int) -> Data? {
            var data = Data(count: count)
            var offset = 0
            while offset < count {
                let n = data.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress! + offset, count - offset) }
                if n > 0 { offset += n } else if n < 0 && errno == EINTR { continue } else { return nil }
            }
            return data
        }

        @available(*, noasync)
        static func write(_ fd: Int32, _ data: Data) -> Bool {
            data.withUnsafeBytes { raw in
                var offset = 0
                while offset < raw.count {
                    let n = Glibc.write(fd, raw.baseAddress! + offset, raw.count - offset)
                    if n > 0 { offset += n } else if n < 0 && errno == EINTR { continue } else { return false }
                }
                return true
            }
        }
    }
}
