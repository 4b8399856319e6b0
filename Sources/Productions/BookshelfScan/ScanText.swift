import Foundation
import TerminalText
import TextEscaping

/// How a scan's results read on a terminal.
public enum ScanText {
    /// The totals, then each photo's spines: what each became and why.
    public static func results(_ r: ScanResults) -> String {
        var out = "\(r.name): \(r.state.replacingOccurrences(of: "_", with: " ")) (\(r.productionID.uuidString.lowercased()))\n"
        if let report = r.report {
            out += "  \(report.photos) photos, \(report.spines) spines: \(report.owned) already in the catalog, \(report.added) added, "
                + "\(report.toReview) to review (reparto books review)\n"
        }
        for photo in r.photos {
            let reading = photo.state == "pending" ? "not read" : "\(photo.spines.count) spines" + (photo.reused == true ? ", an earlier reading reused" : "")
            out += "\nphoto \(photo.number): \(photo.sourceName) — \(reading)\n"
            for spine in photo.spines {
                let read = spine.title + (spine.author.map { " — \($0)" } ?? "")
                out += "  \(spine.position). \(read) (\(String(format: "%.2f", spine.confidence)))\n"
                switch spine.outcome {
                case "owned"?: out += "     already in the catalog: \(spine.book ?? "?")\(score(spine))\n"
                case "added"?: out += "     added to the catalog: \(spine.book ?? "?")\(score(spine))\n"
                case "review"?: out += "     to review (\(spine.reviewID.map { String($0.uuidString.lowercased().prefix(8)) } ?? "?"))\n"
                case let other?: out += "     \(other)\n"
                case nil: out += "     not matched yet\n"
                }
                for reason in spine.evidence.prefix(3) { out += "       · \(reason)\n" }
            }
        }
        let dead = r.failures.filter { $0.state == "dead" }
        if !dead.isEmpty { out += "\n" }
        for failure in dead.prefix(5) { out += "failed  \(failure.kind): \(failure.error ?? "no error recorded")\n" }
        if dead.count > 5 { out += "…and \(dead.count - 5) more failed jobs\n" }
        return TerminalSafe.clean(out)
    }

    private static func score(_ spine: ScanResults.Spine) -> String {
        spine.score.map { " (score \(String(format: "%.2f", $0)))" } ?? ""
    }
}
