import ArgumentParser

/// The `reparto` command line: every subcommand lives in its own file.
public struct RepartoCommand: AsyncParsableCommand {
    public static let configuration = CommandConfiguration(
        commandName: "reparto",
        abstract: "A job cluster that turns scripts and documents into data and media.",
        subcommands: [ParseCommand.self, VoicesCommand.self, SpeakCommand.self]
    )
    public init() {}
}
