import ArgumentParser
import Foundation
import RepartoRuntime

/// `reparto cancel ID`: cancels a production or a job.
struct CancelCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "cancel", abstract: "Cancel a production or job: waiting work is dropped, running work stops, finished results stay.")

    @OptionGroup var cluster: ClusterOptions
    @Argument(help: "Production or job id (or production name).") var id: String

    func run() async throws {
        try await cluster.withJobClient("reparto.cancel") { try await $0.cancel(ProductionName.resolve(id)) }
        print("cancelled \(id)")
    }
}

/// `reparto retry ID`: queues dead or cancelled jobs again.
struct RetryCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "retry", abstract: "Run the dead or cancelled jobs of a production (or one job) again.")

    @OptionGroup var cluster: ClusterOptions
    @Argument(help: "Production or job id (or production name).") var id: String

    func run() async throws {
        let count = try await cluster.withJobClient("reparto.retry") { try await $0.retry(ProductionName.resolve(id)) }
        print("requeued \(count) job\(count == 1 ? "" : "s")")
    }
}
