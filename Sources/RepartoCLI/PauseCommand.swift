import ArgumentParser
import Foundation
import Jobs
import RepartoKinds

/// Which queue or kind `pause` and `resume` mean.
struct PauseTargetOptions: ParsableArguments {
    @Argument(help: "A queue or job kind.") var name: String
    @Flag(help: "NAME is a queue.") var queue = false
    @Flag(help: "NAME is a job kind.") var kind = false

    func validate() throws {
        if queue && kind { throw ValidationError("give --queue or --kind, not both") }
    }

    /// The target: as flagged, else whichever of this build's queues and kinds has the name.
    func target(registry: JobRegistry) throws -> PauseTarget {
        try PauseTarget(resolving: name, scope: queue ? .queue : kind ? .kind : nil, in: registry)
    }
}

/// `reparto pause QUEUE|KIND`: its jobs stay queued and none starts until resumed.
struct PauseCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "pause", abstract: "Pause a queue or job kind cluster-wide: its jobs stay queued, running ones finish.")

    @OptionGroup var cluster: ClusterOptions
    @OptionGroup var what: PauseTargetOptions

    func run() async throws {
        let target = try what.target(registry: Kinds.registry(configuration: try cluster.configuration))
        let paused = try await cluster.withJobClient("reparto.pause") { try await $0.pause(target) }
        print(paused ? "paused \(target)" : "\(target) was already paused")
    }
}

/// `reparto resume QUEUE|KIND`: its parked jobs are published again.
struct ResumeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "resume", abstract: "Resume a paused queue or job kind: its waiting jobs run again.")

    @OptionGroup var cluster: ClusterOptions
    @OptionGroup var what: PauseTargetOptions

    func run() async throws {
        let target = try what.target(registry: Kinds.registry(configuration: try cluster.configuration))
        let released = try await cluster.withJobClient("reparto.resume") { try await $0.resume(target) }
        print("resumed \(target) (\(released) parked job\(released == 1 ? "" : "s") released)")
    }
}
