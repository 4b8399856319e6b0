import Foundation

/// Where the audio goes, which decides its levels and the MP3's encoding.
///
/// - ``podcast``: −16 LUFS integrated, true peak at most −1 dBTP (``LoudnessNormalizer``); the
///   MP3 is LAME VBR. What every read was before masters existed.
/// - ``acx``: ACX/Audible's Audio Submission Requirements (``AudioMasterLevels/acx``): −23 to
///   −18 dB RMS, peaks at most −3 dB on the encoded MP3, a noise floor at most −60 dB RMS with no
///   digital silence (room tone), 0.5–1 s of room tone at the head and 1–5 s at the tail, MP3
///   192 kbit/s CBR at 44.1 kHz (``AudioMastering``). It always delivers the MP3.
public enum AudioMaster: String, CaseIterable, Codable, Sendable, Hashable {
    case podcast
    case acx

    /// The master named `text` (case and surrounding spaces ignored), as `--master` takes it.
    /// - Throws: ``UnknownAudioMaster`` naming the text.
    public init(parsing text: String) throws(UnknownAudioMaster) {
        guard let master = AudioMaster(rawValue: text.trimmingCharacters(in: .whitespaces).lowercased()) else {
            throw UnknownAudioMaster(name: text)
        }
        self = master
    }

    /// The formats a read with this master delivers besides the WAV: `formats` as asked, and for
    /// ``acx`` the MP3 ACX takes, first, whether asked for or not.
    public func deliveredFormats(_ formats: [AudioFileFormat]) -> [AudioFileFormat] {
        var delivered = formats.filter { $0 != .wav }
        if self == .acx, !delivered.contains(.mp3) { delivered.insert(.mp3, at: 0) }
        var seen: Set<AudioFileFormat> = []
        return delivered.filter { seen.insert($0).inserted }
    }
}

/// A `--master` value that is not an ``AudioMaster``.
public struct UnknownAudioMaster: Error, Sendable, Equatable, CustomStringConvertible {
    /// The name as given (shown cut to 40 characters, with control characters replaced).
    public var name: String

    public var description: String {
        let shown = String(name.prefix(40).map { $0.unicodeScalars.contains(where: CharacterSet.controlCharacters.contains) ? "?" : $0 })
        return "unknown master '\(shown)' for --master (\(AudioMaster.allCases.map(\.rawValue).joined(separator: ", ")))"
    }
}
