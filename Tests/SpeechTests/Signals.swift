import Foundation
@testable import Speech

/// Test signals.
enum Signals {
    /// A sine of `frequency` Hz and `amplitude` (0…1) for `seconds`.
    static func sine(frequency: Double = 440, amplitude: Double = 0.5, seconds: Double = 1, sampleRate: Int = 16000, channels: Int = 1) -> PCMAudio {
        let frames = Int(seconds * Double(sampleRate))
        var samples = [Float](repeating: 0, count: frames * channels)
        for i in 0..<frames {
            let v = Float(amplitude * sin(2 * Double.pi * frequency * Double(i) / Double(sampleRate)))
            for c in 0..<channels { samples[i * channels + c] = v }
        }
        return PCMAudio(sampleRate: sampleRate, channels: channels, samples: samples)
    }

    /// A WAV file with an arbitrary header (for formats the writer does not produce).
    static func wav(tag: UInt16, channels: Int, rate: Int, bits: Int, payload: Data, extensibleSubformat: UInt16? = nil) -> Data {
        var d = Data()
        func le16(_ v: UInt16) { d.append(UInt8(v & 0xFF)); d.append(UInt8(v >> 8)) }
        func le32(_ v: UInt32) { for s in [0, 8, 16, 24] { d.append(UInt8((v >> UInt32(s)) & 0xFF)) } }
        let fmtSize = extensibleSubformat == nil ? 16 : 40
        d.append(contentsOf: Array("RIFF".utf8)); le32(UInt32(4 + 8 + fmtSize + 8 + payload.count))
        d.append(contentsOf: Array("WAVE".utf8))
        d.append(contentsOf: Array("fmt ".utf8)); le32(UInt32(fmtSize))
        le16(extensibleSubformat == nil ? tag : 0xFFFE); le16(UInt16(channels)); le32(UInt32(rate))
        le32(UInt32(rate * channels * bits / 8)); le16(UInt16(channels * bits / 8)); le16(UInt16(bits))
        if let sub = extensibleSubformat {
            le16(22); le16(UInt16(bits)); le32(0)
            le16(sub); d.append(contentsOf: [0x00, 0x00, 0x00, 0x00, 0x10, 0x00, 0x80, 0x00, 0x00, 0xAA, 0x00, 0x38, 0x9B, 0x71])
        }
        d.append(contentsOf: Array("data".utf8)); le32(UInt32(payload.count))
        d.append(payload)
        return d
    }
}

/// WAV files in the shapes real writers produce, built byte by byte (sizes worked out by hand in
/// the comments). Every fixture carries the same four 16-bit samples, 24 kHz mono unless noted:
/// 0, 16384, -16384, 32767 → 0, 0.5, -0.5, 32767/32768.
enum RealWorldWAV {
    static let samples: [Int16] = [0, 16384, -16384, 32767]
    static let expected: [Float] = [0, 0.5, -0.5, 32767.0 / 32768.0]

    static var pcm: Data {
        var d = Data()
        for s in samples { d.appendLE16(UInt16(bitPattern: s)) }
        return d
    }

    /// A chunk: id, declared size (the body's length unless given), body, and the pad byte RIFF
    /// requires after an odd-sized body.
    static func chunk(_ id: String, _ body: Data, declaredSize: UInt32? = nil) -> Data {
        var d = Data(id.utf8)
        d.appendLE32(declaredSize ?? UInt32(body.count))
        d.append(body)
        if body.count % 2 == 1 { d.append(0) }
        return d
    }

    /// `fmt ` body for PCM or IEEE float; `extraSize` appends cbSize (18-byte fmt, as sox writes).
    static func fmt(tag: UInt16 = 1, rate: UInt32 = 24000, bits: UInt16 = 16, extraSize: Bool = false) -> Data {
        var d = Data()
        d.appendLE16(tag); d.appendLE16(1); d.appendLE32(rate)
        d.appendLE32(rate * UInt32(bits / 8)); d.appendLE16(bits / 8); d.appendLE16(bits)
        if extraSize { d.appendLE16(0) }
        return d
    }

    static func riff(size: UInt32?, _ chunks: [Data]) -> Data {
        let body = chunks.reduce(Data("WAVE".utf8), +)
        var d = Data("RIFF".utf8)
        d.appendLE32(size ?? UInt32(body.count))
        return d + body
    }

    /// OpenAI's `/v1/audio/speech` with `response_format: wav` streams the file, so it cannot know
    /// the sizes up front: RIFF and data sizes are both 0xFFFFFFFF.
    static var openAIStreamed: Data {
        riff(size: 0xFFFF_FFFF, [chunk("fmt ", fmt()), chunk("data", pcm, declaredSize: 0xFFFF_FFFF)])
    }

    /// `espeak-ng --stdout` (checked with espeak-ng 1.51 here): RIFF size 0x7FFFF024 and data size
    /// 0x7FFFF000, 22050 Hz.
    static var espeakStdout: Data {
        riff(size: 0x7FFF_F024, [chunk("fmt ", fmt(rate: 22050)), chunk("data", pcm, declaredSize: 0x7FFF_F000)])
    }

    /// A LIST/INFO chunk before the data, as ffmpeg writes (ISFT "Lavf59.27.100" + NUL = 14 bytes),
    /// and an odd-sized one (ICMT "hello", 5 bytes, so 4 + 8 + 5 = 17 and a pad byte), then a
    /// LIST after the data that must not be read as samples.
    static var listChunksAndOddPadding: Data {
        let isft = chunk("ISFT", Data("Lavf59.27.100\0".utf8))
        let icmt = chunk("ICMT", Data("hello".utf8))
        let odd = Data("INFO".utf8) + Data("ICMT".utf8) + Data([5, 0, 0, 0]) + Data("hello".utf8)  // 17 bytes
        precondition(odd.count == 17)
        return riff(size: nil, [chunk("fmt ", fmt()), chunk("LIST", Data("INFO".utf8) + isft), chunk("LIST", odd),
                                chunk("data", pcm), chunk("LIST", Data("INFO".utf8) + icmt)])
    }

    /// sox writing 32-bit float: an 18-byte fmt (cbSize 0) and a `fact` chunk with the frame count.
    static var soxFloatWithFact: Data {
        var floats = Data()
        for v in expected { floats.appendLE32(v.bitPattern) }
        var fact = Data(); fact.appendLE32(UInt32(expected.count))
        return riff(size: nil, [chunk("fmt ", fmt(tag: 3, rate: 8000, bits: 32, extraSize: true)), chunk("fact", fact),
                                chunk("data", floats)])
    }

    static let all: [(name: String, data: Data, rate: Int)] = [
        ("OpenAI streamed", openAIStreamed, 24000), ("espeak-ng --stdout", espeakStdout, 22050),
        ("LIST chunks and odd padding", listChunksAndOddPadding, 24000), ("sox float with fact", soxFloatWithFact, 8000),
    ]
}
