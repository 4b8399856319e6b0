import ArgumentParser
// Every command parses the shared option groups (ClusterOptions) and reports CLIError lines.
@_exported import CommandOptions
import Composition
import RepartoBench

/// The `reparto` command line: every subcommand lives in its own file.
public struct RepartoCommand: AsyncParsableCommand {
    public static let configuration = CommandConfiguration(
        commandName: "reparto",
        abstract: "A job cluster that turns scripts and documents into data and media.",
        subcommands: [MigrateCommand.self, WorkerCommand.self, CoordinatorCommand.self, EnqueueCommand.self,
                      StatusCommand.self, WatchCommand.self, CancelCommand.self, RetryCommand.self, ScheduleCommand.self, PruneCommand.self, AssetsCommand.self, BenchCommand.self,
                      ParseCommand.self, VoicesCommand.self, SpeakCommand.self, RunCommand.self, ResultsCommand.self,
                      DashboardCommand.self, SpeechHelperCommand.self,
                      LimitCommand.self, PauseCommand.self, ResumeCommand.self,
                      GenerateCommand.self, UsageCommand.self, ProvidersCommand.self]
            // Each production type's own commands (`submit`, `cast`, `import`, `books`, `analyze`, `search`).
            + ProductionTypes.all.flatMap { $0.commands }
    )
    public init() {}
}

/// The executable's entry point, as a protocol so the async `main` is the one that runs.
public protocol AsyncParsableCommandEntry {
    static func runMain() async
}

extension RepartoCommand: AsyncParsableCommandEntry {
    public static func runMain() async {
        let entry: any AsyncParsableCommand.Type = RepartoCommand.self
        await entry.main()
    }
}
