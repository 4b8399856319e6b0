import Foundation

/// Decoded audio: interleaved float samples in [-1, 1] with a sample rate and channel count.
///
/// Reads every WAV that ``WAVHeader`` accepts; writes 16-bit PCM (or 32-bit float).
public struct PCMAudio: Sendable, Hashable {
    public var sampleRate: Int
    public var channels: Int
    /// Interleaved samples, `frameCount * channels` of them.
    public var samples: [Float]

    public init(sampleRate: Int, channels: Int, samples: [Float]) {
        self.sampleRate = sampleRate
        self.channels = channels
        self.samples = samples
    }

    /// Silence of `seconds` length (none for a negative or non-finite length, at most an hour).
    public static func silence(seconds: Double, sampleRate: Int, channels: Int) -> PCMAudio {
        let seconds = seconds.isFinite ? min(max(seconds, 0), 3600) : 0
        let frames = Int((seconds * Double(max(0, min(sampleRate, 768_000)))).rounded())
        return PCMAudio(sampleRate: sampleRate, channels: channels,
                        samples: [Float](repeating: 0, count: frames * max(0, min(channels, 32))))
    }

    /// Frames (samples per channel).
    public var frameCount: Int { samples.count / max(channels, 1) }
    /// Duration in seconds.
    public var duration: Double { Double(frameCount) / Double(sampleRate) }

    /// Peak level in dBFS (0 = full scale; `-infinity` for silence).
    public var peakDBFS: Double {
        let peak = samples.reduce(Float(0)) { max($0, abs($1)) }
        return 20 * log10(Double(peak))
    }

    /// RMS level in dBFS (a full-scale sine is about -3.01; `-infinity` for silence).
    public var rmsDBFS: Double {
        guard !samples.isEmpty else { return -.infinity }
        let sum = samples.reduce(0.0) { $0 + Double($1) * Double($1) }
        return 10 * log10(sum / Double(samples.count))
    }

    // MARK: decoding

    /// Decodes a WAV file.
    /// - Throws: ``WAVError``.
    public init(wav data: Data) throws(WAVError) {
        let header = try WAVHeader(parsing: data)
        let f = header.format
        let count = header.dataLength / (f.bitsPerSample / 8)
        var out = [Float](repeating: 0, count: count)
        data.withUnsafeBytes { (raw: UnsafeRawBufferPointer) in
            let base = raw.baseAddress! + header.dataOffset
            switch (f.encoding, f.bitsPerSample) {
            case (.integer, 8):
                for i in 0..<count { out[i] = (Float(base.load(fromByteOffset: i, as: UInt8.self)) - 128) / 128 }
            case (.integer, 16):
                for i in 0..<count {
                    out[i] = Float(Int16(littleEndian: base.loadUnaligned(fromByteOffset: i * 2, as: Int16.self))) / 32768
                }
            case (.integer, 24):
                for i in 0..<count {
                    let b0 = Int32(base.load(fromByteOffset: i * 3, as: UInt8.self))
                    let b1 = Int32(base.load(fromByteOffset: i * 3 + 1, as: UInt8.self))
                    let b2 = Int32(Int8(bitPattern: base.load(fromByteOffset: i * 3 + 2, as: UInt8.self)))
                    out[i] = Float(b0 | b1 << 8 | b2 << 16) / 8_388_608
                }
            case (.integer, 32):
                for i in 0..<count {
                    out[i] = Float(Double(Int32(littleEndian: base.loadUnaligned(fromByteOffset: i * 4, as: Int32.self))) / 2_147_483_648)
                }
            case (.float, 32):
                for i in 0..<count {
                    out[i] = Float(bitPattern: UInt32(littleEndian: base.loadUnaligned(fromByteOffset: i * 4, as: UInt32.self)))
                }
            case (.float, 64):
                for i in 0..<count {
                    out[i] = Float(Double(bitPattern: UInt64(littleEndian: base.loadUnaligned(fromByteOffset: i * 8, as: UInt64.self))))
                }
            default:
                break  // WAVHeader only accepts the formats above
            }
        }
        self.init(sampleRate: f.sampleRate, channels: f.channels, samples: out)
    }

    // MARK: encoding

    /// Encodes as a WAV file: 16-bit PCM (default, clipped to full scale) or 32-bit float.
    public func wavData(encoding: WAVFormat.Encoding = .integer) -> Data {
        let bits = encoding == .float ? 32 : 16
        let format = WAVFormat(sampleRate: sampleRate, channels: channels, bitsPerSample: bits, encoding: encoding)
        var data = WAVWriter.header(format: format, dataLength: samples.count * bits / 8)
        data.reserveCapacity(data.count + samples.count * bits / 8)
        if encoding == .float {
            for s in samples { data.appendLE32(s.bitPattern) }
        } else {
            for s in samples {
                let v = Int16(max(-32768, min(32767, (Double(s) * 32768).rounded())))
                data.appendLE16(UInt16(bitPattern: v))
            }
        }
        return data
    }

    // MARK: transforms

    /// The same audio at `rate`, by linear interpolation (good enough for speech).
    public func resampled(to rate: Int) -> PCMAudio {
        guard rate != sampleRate, frameCount > 0 else { return PCMAudio(sampleRate: rate, channels: channels, samples: samples) }
        let outFrames = Int((Double(frameCount) * Double(rate) / Double(sampleRate)).rounded())
        var out = [Float](repeating: 0, count: outFrames * channels)
        let step = Double(sampleRate) / Double(rate)
        for i in 0..<outFrames {
            let pos = Double(i) * step
            let i0 = min(Int(pos), frameCount - 1)
            let i1 = min(i0 + 1, frameCount - 1)
            let t = Float(pos - Double(i0))
            for c in 0..<channels {
                out[i * channels + c] = samples[i0 * channels + c] * (1 - t) + samples[i1 * channels + c] * t
            }
        }
        return PCMAudio(sampleRate: rate, channels: channels, samples: out)
    }

    /// The audio `gain` times louder (0.5: half the amplitude), never clipping: a gain that would
    /// push the peak past full scale is lowered to just reach it.
    public func amplified(by gain: Double) -> PCMAudio {
        let peak = samples.reduce(Float(0)) { max($0, abs($1)) }
        // Bounded before the conversion: Float(1e300) is infinite, and silence × ∞ is NaN.
        var factor = gain.isNaN ? 1 : Float(min(max(0, gain), 1e6))
        if peak > 0, factor * peak > 1 { factor = 1 / peak }
        guard factor != 1 else { return self }
        return PCMAudio(sampleRate: sampleRate, channels: channels, samples: samples.map { $0 * factor })
    }

    /// Joins `parts` with `pause` seconds of silence between consecutive parts.
    ///
    /// All parts take the first part's sample rate: others are resampled when `allowResampling`
    /// is true, otherwise a rate difference is ``SpeechError/formatMismatch(reason:)``. Different
    /// channel counts are always a ``SpeechError/formatMismatch(reason:)``.
    public static func concatenate(_ parts: [PCMAudio], pause: Double = 0, allowResampling: Bool = true) throws(SpeechError) -> PCMAudio {
        try concatenate(parts, pauses: Array(repeating: pause, count: max(parts.count - 1, 0)), allowResampling: allowResampling)
    }

    /// Joins `parts` with `pauses[i]` seconds of silence after part `i` (`pauses.count == parts.count - 1`).
    public static func concatenate(_ parts: [PCMAudio], pauses: [Double], allowResampling: Bool = true) throws(SpeechError) -> PCMAudio {
        guard let first = parts.first else { return PCMAudio(sampleRate: 22050, channels: 1, samples: []) }
        guard pauses.count == parts.count - 1 else {
            throw .formatMismatch(reason: "\(pauses.count) pauses for \(parts.count) parts")
        }
        var out = PCMAudio(sampleRate: first.sampleRate, channels: first.channels, samples: [])
        out.samples.reserveCapacity(parts.reduce(0) { $0 + $1.samples.count })
        for (i, part) in parts.enumerated() {
            guard part.channels == first.channels else {
                throw .formatMismatch(reason: "part \(i) has \(part.channels) channels, expected \(first.channels)")
            }
            var p = part
            if p.sampleRate != first.sampleRate {
                guard allowResampling else {
                    throw .formatMismatch(reason: "part \(i) is \(p.sampleRate) Hz, expected \(first.sampleRate) Hz")
                }
                p = p.resampled(to: first.sampleRate)
            }
            out.samples.append(contentsOf: p.samples)
            if i < pauses.count, pauses[i] > 0 {
                out.samples.append(contentsOf: silence(seconds: pauses[i], sampleRate: first.sampleRate, channels: first.channels).samples)
            }
        }
        return out
    }
}

/// Writing WAV headers and fixing streaming ones.
public enum WAVWriter {
    /// A 44-byte canonical header (or a 68-byte `WAVE_FORMAT_EXTENSIBLE` one for more than 2 channels is not needed here).
    public static func header(format: WAVFormat, dataLength: Int) -> Data {
        var d = Data()
        d.append(contentsOf: Array("RIFF".utf8)); d.appendLE32(UInt32(36 + dataLength))
        d.append(contentsOf: Array("WAVE".utf8))
        d.append(contentsOf: Array("fmt ".utf8)); d.appendLE32(16)
        d.appendLE16(format.encoding == .float ? 3 : 1)
        d.appendLE16(UInt16(format.channels))
        d.appendLE32(UInt32(format.sampleRate))
        d.appendLE32(UInt32(format.sampleRate * format.blockAlign))
        d.appendLE16(UInt16(format.blockAlign))
        d.appendLE16(UInt16(format.bitsPerSample))
        d.append(contentsOf: Array("data".utf8)); d.appendLE32(UInt32(dataLength))
        return d
    }

    /// Wraps raw little-endian PCM bytes (e.g. ElevenLabs `pcm_24000`) in a WAV header.
    public static func wrap(rawPCM: Data, format: WAVFormat) -> Data {
        var d = header(format: format, dataLength: rawPCM.count - rawPCM.count % max(format.blockAlign, 1))
        d.append(rawPCM.prefix(rawPCM.count - rawPCM.count % max(format.blockAlign, 1)))
        return d
    }

    /// Validates `data` as WAV and returns it with a correct header: streaming placeholder sizes
    /// (espeak-ng `--stdout`) are replaced by the real sizes, and trailing partial frames dropped.
    /// Cheap: samples are not decoded.
    public static func normalized(_ data: Data) throws(WAVError) -> (data: Data, header: WAVHeader) {
        var header = try WAVHeader(parsing: data)
        var out = WAVWriter.header(format: header.format, dataLength: header.dataLength)
        out.append(data[(data.startIndex + header.dataOffset)..<(data.startIndex + header.dataOffset + header.dataLength)])
        header.dataOffset = 44
        header.wasStreamingHeader = false
        return (out, header)
    }
}
