import Foundation

/// A production's results as `reparto results` prints them: text for people, JSON for programs.
public protocol ProductionReport: Sendable {
    /// The report for a terminal, ending with a newline; `assetsRoot` turns stored paths into files.
    func text(assetsRoot: URL) -> String
    /// The results as pretty-printed JSON, ending with a newline.
    func json() throws -> String
}
