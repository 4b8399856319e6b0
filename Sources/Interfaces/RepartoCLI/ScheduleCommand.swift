import ArgumentParser
import Foundation
import RepartoRuntime
import Composition
import TerminalText

/// `reparto schedule add|list|pause|resume|delete`: jobs enqueued on a cron expression or an
/// interval by the coordinator leader.
struct ScheduleCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "schedule",
        abstract: "Enqueue jobs on a cron expression or an interval (fired by the coordinator leader).",
        discussion: """
            Each tick is enqueued once, whichever coordinator leads. Ticks missed while no coordinator ran \
            are run once on recovery, then the schedule continues from its next future tick.
            """,
        subcommands: [ScheduleAddCommand.self, ScheduleListCommand.self, SchedulePauseCommand.self,
                      ScheduleResumeCommand.self, ScheduleDeleteCommand.self],
        defaultSubcommand: ScheduleListCommand.self
    )
}

/// `reparto schedule add NAME KIND (--cron EXPR [--timezone TZ] | --every 30s) [--params JSON] …`
struct ScheduleAddCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "add", abstract: "Add a schedule, or replace the one with that name.",
        discussion: """
            Examples: reparto schedule add cleanup --cron "*/5 * * * *" noop
                      reparto schedule add report --cron "0 6 * * MON-FRI" sleep --params '{"seconds": 1}' --timezone Europe/Berlin
                      reparto schedule add ping --every 30s noop
            Cron: minute hour day-of-month month day-of-week, with *, lists, ranges, steps, JAN-DEC, SUN-SAT \
            (7 = Sunday), or @hourly @daily @weekly @monthly @yearly. Intervals: 30s, 5m, 1h, 1d, 1h30m (at least 1s), \
            counted from 1970-01-01 UTC (every 1h fires on the hour).
            """)

    @OptionGroup var cluster: ClusterOptions

    @Argument(help: "The schedule's name (letters, digits and . _ - : /).") var name: String
    @Argument(help: "The job kind (reparto enqueue --list shows them).") var kind: String
    @Option(help: "A cron expression: 5 fields or a nickname such as @daily.") var cron: String?
    @Option(help: "An interval instead of --cron: 30s, 5m, 1h, 1d, 1h30m.") var every: String?
    @Option(help: "The IANA time zone the cron expression's times are in (default: UTC).") var timezone: String?
    @Option(help: "Parameters of each job, as a JSON object.") var params: String = "{}"
    @Option(help: "Priority: high, normal or low.") var priority: JobPriority = .normal
    @Option(help: "Attempts before a job is dead.") var maxAttempts: Int = 5
    @Option(help: "Seconds one attempt may run (default: the kind's timeout).") var timeout: Double?

    func run() async throws {
        let cadence = try ScheduleCadence(cron: cron, every: every, timeZone: timezone)
        let (definition, json) = try Kinds.registry(configuration: try cluster.configuration).checked(kind: kind, parameters: params)
        let schedule = ScheduleDefinition(name: name, cadence: cadence, kind: definition.kind, queue: definition.queue, parameters: json,
                                          priority: priority, maxAttempts: maxAttempts, timeout: timeout)
        let (record, replaced) = try await cluster.withJobClient("reparto.schedule") { try await $0.addSchedule(schedule) }
        let next = record.nextRunAt.map { ScheduleText.time($0) } ?? "never"
        print("\(replaced ? "replaced" : "added") schedule \(record.name): \(record.definition.cadence), next run \(next)\(record.paused ? " (paused)" : "")")
    }
}

/// `reparto schedule list [--json]`
struct ScheduleListCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "list", abstract: "List the schedules.")

    @OptionGroup var cluster: ClusterOptions

    @Flag(help: "Print JSON instead of a table.") var json = false

    func run() async throws {
        let schedules = try await cluster.withJobClient("reparto.schedule") { try await $0.schedules() }
        print(json ? ScheduleText.json(schedules) : ScheduleText.table(schedules), terminator: json ? "\n" : "")
    }
}

/// `reparto schedule pause NAME`
struct SchedulePauseCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "pause", abstract: "Pause a schedule: it keeps its definition and enqueues nothing until resumed.")

    @OptionGroup var cluster: ClusterOptions
    @Argument(help: "The schedule's name.") var name: String

    func run() async throws {
        try await cluster.withJobClient("reparto.schedule") { _ = try await $0.pauseSchedule(named: name) }
        print("paused schedule \(name)")
    }
}

/// `reparto schedule resume NAME`
struct ScheduleResumeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "resume", abstract: "Resume a paused schedule from its next tick after now (ticks it slept through are not run).")

    @OptionGroup var cluster: ClusterOptions
    @Argument(help: "The schedule's name.") var name: String

    func run() async throws {
        let record = try await cluster.withJobClient("reparto.schedule") { try await $0.resumeSchedule(named: name) }
        print("resumed schedule \(name), next run \(record.nextRunAt.map { ScheduleText.time($0) } ?? "never")")
    }
}

/// `reparto schedule delete NAME`
struct ScheduleDeleteCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "delete", abstract: "Delete a schedule (the jobs it enqueued stay).")

    @OptionGroup var cluster: ClusterOptions
    @Argument(help: "The schedule's name.") var name: String

    func run() async throws {
        try await cluster.withJobClient("reparto.schedule") { try await $0.deleteSchedule(named: name) }
        print("deleted schedule \(name)")
    }
}
