import ArgumentParser
import Foundation
import RepartoRuntime
import Composition

/// Which queue or kind `pause` and `resume` mean.
struct PauseTargetOptions: ParsableArguments {
    @Argument(help: "A queue or job kind.") var name: String
    @Flag(help: "NAME is a queue.") var queue = false
    @Flag(help: "NAME is a job kind.") var kind = false

    func validate() throws {
        if queue && kind { throw ValidationError("give --queue or --kind, not both") }
    }

    @OptionGroup var cluster: ClusterOptions

    /// Runs `action` on the target — as flagged, else whichever of this build's queues and kinds
    /// has the name — with a client, logging as `label`.
    func apply<T>(_ label: String, _ action: (JobClient, PauseTarget) async throws -> T) async throws -> (PauseTarget, T) {
        let target = try PauseTarget(resolving: name, scope: queue ? .queue : kind ? .kind : nil,
                                     in: Kinds.registry(configuration: try cluster.configuration))
        return (target, try await cluster.withJobClient(label) { try await action($0, target) })
    }
}

/// `reparto pause QUEUE|KIND`: its jobs stay queued and none starts until resumed.
struct PauseCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "pause", abstract: "Pause a queue or job kind cluster-wide: its jobs stay queued, running ones finish.")

    @OptionGroup var what: PauseTargetOptions

    func run() async throws {
        let (target, paused) = try await what.apply("reparto.pause") { try await $0.pause($1) }
        print(paused ? "paused \(target)" : "\(target) was already paused")
    }
}

/// `reparto resume QUEUE|KIND`: its parked jobs are published again.
struct ResumeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "resume", abstract: "Resume a paused queue or job kind: its waiting jobs run again.")

    @OptionGroup var what: PauseTargetOptions

    func run() async throws {
        let (target, released) = try await what.apply("reparto.resume") { try await $0.resume($1) }
        print("resumed \(target) (\(released) parked job\(released == 1 ? "" : "s") released)")
    }
}
