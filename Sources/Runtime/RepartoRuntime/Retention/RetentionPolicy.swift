import Foundation
import RepartoConfiguration

/// A retention setting that does not parse, in one line naming the variable or flag.
public struct RetentionError: Error, Sendable, Equatable, CustomStringConvertible {
    public let description: String
    public init(description: String) { self.description = description }
}

/// How long finished work is kept before the coordinator prunes it (``JobStore`` retention):
/// `REPARTO_RETENTION` for succeeded and cancelled jobs and finished productions (default 30 days),
/// `REPARTO_DEAD_RETENTION` for dead jobs and the productions that hold one (default 90 days: the
/// failures are what someone comes back to read), `REPARTO_WORKER_RETENTION` for the rows of stopped
/// or stale workers (default 1 day), after which they leave `status` and the dashboard.
///
/// Durations are a number and a unit — `45s`, `30m`, `12h`, `30d`, `2w` — or a sum such as `1d12h`;
/// `never` keeps that class forever.
public struct RetentionPolicy: Sendable, Equatable {
    /// Seconds; `.infinity` for never.
    public var finished: Double
    public var dead: Double
    public var workers: Double

    public static let finishedVariable = "REPARTO_RETENTION"
    public static let deadVariable = "REPARTO_DEAD_RETENTION"
    public static let workersVariable = "REPARTO_WORKER_RETENTION"

    /// 30 days, 90 days for dead jobs, 1 day for worker rows.
    public static let standard = RetentionPolicy(finished: 30 * 86_400, dead: 90 * 86_400, workers: 86_400)

    public init(finished: Double, dead: Double, workers: Double) {
        self.finished = finished
        self.dead = dead
        self.workers = workers
    }

    /// The same age for everything (`reparto prune --older-than`).
    public init(all seconds: Double) {
        self.init(finished: seconds, dead: seconds, workers: seconds)
    }

    /// The policy the variables above set, the standard one for those unset.
    /// - Throws: ``RetentionError`` naming the variable whose value does not parse.
    public init(configuration values: ConfigurationValues) throws(RetentionError) {
        func read(_ variable: String, _ standard: Double) throws(RetentionError) -> Double {
            guard let text = values[variable] else { return standard }
            return try Self.seconds(text, setting: variable)
        }
        self.init(finished: try read(Self.finishedVariable, Self.standard.finished),
                  dead: try read(Self.deadVariable, Self.standard.dead),
                  workers: try read(Self.workersVariable, Self.standard.workers))
    }

    /// Parses a duration (`30d`, `1d12h`, `never`); `setting` names the variable or flag in the error.
    public static func seconds(_ text: String, setting: String) throws(RetentionError) -> Double {
        let trimmed = text.trimmingCharacters(in: .whitespaces).lowercased()
        if trimmed == "never" { return .infinity }
        let units: [Character: Double] = ["s": 1, "m": 60, "h": 3600, "d": 86_400, "w": 604_800]
        var total = 0.0
        var digits = ""
        for character in trimmed {
            if character.isASCII, character.isNumber {
                digits.append(character)
            } else if let unit = units[character], !digits.isEmpty, digits.count <= 9, let value = Double(digits) {
                total += value * unit
                digits = ""
            } else {
                digits = "x"
                break
            }
        }
        guard digits.isEmpty, total >= 1 else {
            throw RetentionError(description: "bad \(setting) '\(text)': expected a duration such as 30d, 12h, 90m, 1d12h, or never")
        }
        return total
    }

    /// `30d`, `1d12h`, `never`: the shortest exact spelling.
    public static func text(_ seconds: Double) -> String {
        guard seconds.isFinite else { return "never" }
        var rest = Int(seconds.rounded())
        var parts = ""
        for (unit, size) in [("d", 86_400), ("h", 3600), ("m", 60), ("s", 1)] where rest >= size {
            parts += "\(rest / size)\(unit)"
            rest %= size
        }
        return parts.isEmpty ? "0s" : parts
    }
}
