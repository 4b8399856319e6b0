import Speech
import SpeechJobs

/// Voices and speech providers as tab-separated text.
public enum VoiceText {
    public static func voices(_ voices: [Voice]) -> String {
        (["id\tname\tgender\tlanguages"] + voices.map { "\($0.id)\t\($0.name)\t\($0.gender ?? "-")\t\($0.languages.joined(separator: ","))" })
            .joined(separator: "\n")
    }

    public static func providers(_ rows: [VoiceProviderState]) -> String {
        let lines = rows.map { row in
            "\(row.id)\t\(row.enabled ? "enabled" : "disabled")\t\(row.configured ? "configured" : "not configured")\t\(row.displayName)"
        }
        return (["id\tenabled\tconfigured\tname"] + lines
                + (rows.isEmpty ? ["(no provider recorded yet: start a worker, or enable one by id)"] : [])).joined(separator: "\n")
    }
}
