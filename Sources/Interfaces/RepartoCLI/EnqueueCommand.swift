import ArgumentParser
import Foundation
import RepartoRuntime
import Composition

/// `reparto enqueue KIND --params JSON`: enqueues jobs of a registered kind.
struct EnqueueCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "enqueue", abstract: "Enqueue jobs of a kind.",
        discussion: "Example: reparto enqueue sleep --params '{\"seconds\": 0.5}' --count 10 --production nightly")

    @OptionGroup var cluster: ClusterOptions

    @Argument(help: "The job kind (see --list).") var kind: String?
    @Option(help: "Parameters as a JSON object.") var params: String = "{}"
    @Option(help: "How many identical jobs.") var count: Int = 1
    @Option(help: "Production (batch) id or name to add the jobs to; created when new.") var production: String?
    @Option(help: "Priority: high, normal or low.") var priority: JobPriority = .normal
    @Option(help: "Attempts before the job is dead.") var maxAttempts: Int = 5
    @Option(help: "Idempotency key (with --count 1): a repeated key returns the existing job.") var idempotencyKey: String?
    @Option(help: "Seconds to wait before the job may run.") var delay: Double?
    @Option(help: "The limit the jobs run under (see `reparto limit`), instead of their kind's.") var limit: String?
    @Option(help: "Each job's estimated cost against its limit's budget (default 1).") var cost: Double?
    @Flag(help: "List the registered kinds and exit.") var list = false

    func validate() throws {
        guard count >= 1 && count <= 1_000_000 else { throw ValidationError("--count must be between 1 and 1000000") }
        guard maxAttempts >= 1 else { throw ValidationError("--max-attempts must be at least 1") }
        if idempotencyKey != nil && count != 1 { throw ValidationError("--idempotency-key needs --count 1") }
        if !list && kind == nil { throw ValidationError("missing job kind (reparto enqueue --list shows them)") }
    }

    func run() async throws {
        let registry = Kinds.registry(configuration: try cluster.configuration)
        if list {
            for definition in registry.definitions { print("\(definition.kind)\tqueue=\(definition.queue)\ttimeout=\(definition.timeout)s") }
            return
        }
        guard let kind else { return }
        if let cost, !(cost >= 0 && cost.isFinite) { throw CLIError("--cost must be a number ≥ 0, not \(cost)") }
        let (definition, json) = try registry.checked(kind: kind, parameters: params)
        let logger = cluster.makeLogger("reparto.enqueue")
        // Up to 100 jobs are published as they commit (larger enqueues, and what the broker does
        // not take, the relays publish).
        let (productionID, ids) = try await cluster.withPostgres(logger: logger) { postgres in
            try await cluster.withJobPublisher(logger: logger) { publisher in
                try await enqueue(definition.kind, queue: definition.queue, parameters: json,
                                  with: JobClient(postgres: postgres, publisher: publisher))
            }
        }
        if let productionID { print("production \(productionID.uuidString.lowercased())") }
        if ids.count <= 20 {
            ids.forEach { print($0.uuidString.lowercased()) }
        } else {
            print("enqueued \(ids.count) \(definition.kind) jobs")
        }
    }

    /// Creates the production if one is named, then enqueues `--count` jobs; returns both ids.
    private func enqueue(_ kind: String, queue: String, parameters: Data, with client: JobClient) async throws -> (UUID?, [UUID]) {
        var productionID: UUID?
        if let production {
            productionID = try await client.createProduction(named: production)
        }
        let options = JobOptions(priority: priority, maxAttempts: maxAttempts, idempotencyKey: idempotencyKey,
                                 productionID: productionID, runAfter: delay.map { Date().addingTimeInterval($0) },
                                 limit: limit, cost: cost)
        let ids = try await client.enqueue(count: count) { _ in
            JobRequest(kind: kind, queue: queue, parameters: parameters, options: options)
        }
        return (productionID, ids)
    }
}

