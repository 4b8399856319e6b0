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
