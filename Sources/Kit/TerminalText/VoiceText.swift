import Speech
import SpeechJobs

/// Voices and speech providers as tab-separated text.
public enum VoiceText {
    public static func voices(_ voices: [Voice]) -> String {
        (["id\tname\tgender\tlanguages"] + voices.map { "\($0.id)\t\($0.name)\t\($0.gender ?? "-")\t\($0.languages.joined(separator: ","))" })
            .joined(separator: "\n")
    }

    /// Piper's voices with what their model files say: language, speakers in the model, sample
    /// rate and quality (`-` for a voice `catalog` no longer has).
    public static func piperVoices(_ voices: [Voice], catalog: PiperVoiceCatalog) -> String {
        let models = Dictionary(catalog.models.map { ($0.id, $0) }, uniquingKeysWith: { first, _ in first })
        let rows = voices.map { voice in
            let model = models[voice.id] ?? voice.id.lastIndex(of: "#").flatMap { models[String(voice.id[..<$0])] }
            let details = model.map { ["\($0.languageCode)", "\($0.speakerCount)", "\($0.sampleRate)", $0.quality ?? "-"] }
                ?? ["-", "-", "-", "-"]
            return ([voice.id, voice.name, voice.gender ?? "-"] + details).joined(separator: "\t")
        }
        return (["id\tname\tgender\tlanguage\tspeakers\tsample_rate\tquality"] + rows).joined(separator: "\n")
    }

    public static func providers(_ rows: [VoiceProviderState]) -> String {
        let lines = rows.map { row in
            "\(row.id)\t\(row.enabled ? "enabled" : "disabled")\t\(row.configured ? "configured" : "not configured")\t\(row.displayName)"
        }
        return (["id\tenabled\tconfigured\tname"] + lines
                + (rows.isEmpty ? ["(no provider recorded yet: start a worker, or enable one by id)"] : [])).joined(separator: "\n")
    }
}
