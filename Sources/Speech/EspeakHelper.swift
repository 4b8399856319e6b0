#if canImport(Glibc)
import Glibc
#endif
import Foundation
import Threading

/// A synthesizer process: libespeak-ng on its main thread, serving ``EspeakHelperPool`` requests
/// on standard input and output (`reparto espeak-helper`).
///
/// libespeak-ng has one synthesizer per process, so a process that wants several lines spoken at
/// once (`reparto run`, whose workers share the process) starts helpers and gives each one line at
/// a time. Frames are little-endian:
///
/// - request: `u32 voice bytes, u32 text bytes, i32 words per minute, i32 pitch, i32 amplitude`,
///   then the voice and the text (UTF-8);
/// - response: `u32 status` (0 ok, 1 unknown voice, 2 engine error), `u32 sample rate`,
///   `u32 payload bytes`, then 16-bit mono PCM (ok) or a UTF-8 message.
public enum EspeakHelper {
    /// Serves requests until standard input ends. Returns the process's exit status.
    @available(*, noasync)
    public static func serve(input: Int32 = 0, output: Int32 = 1) -> Int32 {
        var engine = EspeakEngine.start()
        let never = CancellationFlag()
        while true {
            guard let header = Wire.read(input, count: Wire.requestHeaderSize) else { return 0 }  // end of input: the pool is gone
            let voiceCount = Int(Wire.u32(header, 0)), textCount = Int(Wire.u32(header, 4))
            guard voiceCount <= 1 << 10, textCount <= 1 << 24,
                  let voiceBytes = Wire.read(input, count: voiceCount), let textBytes = Wire.read(input, count: textCount) else { return 1 }
            let result = engine.perform(text: String(decoding: textBytes, as: UTF8.self), voice: String(decoding: voiceBytes, as: UTF8.self),
                                        wordsPerMinute: Int(Int32(bitPattern: Wire.u32(header, 8))),
                                        pitch: Int(Int32(bitPattern: Wire.u32(header, 12))),
                                        amplitude: Int(Int32(bitPattern: Wire.u32(header, 16))), cancellation: never)
            var frame: Data
            switch result {
            case .success(let audio):
                frame = Wire.header(status: 0, sampleRate: audio.sampleRate, payload: audio.pcm.count)
                frame.append(audio.pcm)
            case .failure(let error):
                let unknownVoice = (error as? SpeechError).map { if case .unknownVoice = $0 { true } else { false } } ?? false
                let message = Data(((error as? SpeechError).map { "\($0)" } ?? "\(error)").utf8)
                frame = Wire.header(status: unknownVoice ? 1 : 2, sampleRate: 0, payload: message.count)
                frame.append(message)
            }
            guard Wire.write(output, frame) else { return 1 }
        }
    }

    /// Frame encoding and blocking I/O on descriptors, shared by the helper and the pool.
    enum Wire {
        /// Bytes before a request's voice and text.
        static let requestHeaderSize = 20

        static func request(text: String, voice: String, wordsPerMinute: Int, pitch: Int, amplitude: Int) -> Data {
            let voiceBytes = Data(voice.utf8), textBytes = Data(text.utf8)
            var data = Data(capacity: requestHeaderSize + voiceBytes.count + textBytes.count)
            for value in [UInt32(voiceBytes.count), UInt32(textBytes.count),
                          UInt32(bitPattern: Int32(clamping: wordsPerMinute)), UInt32(bitPattern: Int32(clamping: pitch)),
                          UInt32(bitPattern: Int32(clamping: amplitude))] {
                data.appendLE32(value)
            }
            data.append(voiceBytes)
            data.append(textBytes)
            return data
        }

        static func header(status: UInt32, sampleRate: Int, payload: Int) -> Data {
            var data = Data(capacity: 12 + payload)
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
