import ArgumentParser
import Foundation
import Jobs

/// `reparto enqueue KIND --params JSON`: enqueues jobs of a registered kind.
struct EnqueueCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "enqueue", abstract: "Enqueue jobs of a kind.",
        discussion: "Example: reparto enqueue sleep --params '{\"seconds\": 0.5}' --count 10 --production nightly")

    @OptionGroup var cluster: ClusterOptions

    @Argument(help: "The job kind (see --list).")
    var kind: String?

    @Option(help: "Parameters as a JSON object.")
    var params: String = "{}"

    @Option(help: "How many identical jobs.")
    var count: Int = 1

    @Option(help: "Production (batch) id or name to add the jobs to; created when new.")
    var production: String?

    @Option(help: "Priority: high, normal or low.")
    var priority: JobPriority = .normal

    @Option(help: "Attempts before the job is dead.")
    var maxAttempts: Int = 5

    @Option(help: "Idempotency key (with --count 1): a repeated key returns the existing job.")
    var idempotencyKey: String?

    @Option(help: "Seconds to wait before the job may run.")
    var delay: Double?

    @Flag(help: "List the registered kinds and exit.")
    var list = false

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
        guard let kind, let definition = registry.definition(for: kind) else {
            throw CLIError("unknown job kind '\(kind ?? "")'; known kinds: \(registry.definitions.map(\.kind).joined(separator: ", "))")
        }
        let json = Data(params.utf8)
        guard (try? JSONSerialization.jsonObject(with: json)) is [String: Any] else {
            throw CLIError("--params is not a JSON object: \(params.prefix(80))")
        }
        try definition.validate(parameters: json)
        let logger = cluster.makeLogger("reparto.enqueue")
        let (productionID, ids) = try await cluster.withPostgres(logger: logger) { postgres in
            let client = JobClient(postgres: postgres)
            var productionID: UUID?
            if let production {
                let id = UUID(uuidString: production) ?? ProductionName.id(for: production)
                productionID = try await client.createProduction(id: id, name: production)
            }
            let options = JobOptions(priority: priority, maxAttempts: maxAttempts, idempotencyKey: idempotencyKey,
                                     productionID: productionID, runAfter: delay.map { Date().addingTimeInterval($0) })
            var ids: [UUID] = []
            var remaining = count
            while remaining > 0 {
                let chunk = min(remaining, 5000)
                let requests = (0..<chunk).map { _ in
                    JobRequest(kind: kind, queue: definition.queue, parameters: json, options: options)
                }
                ids += try await client.enqueue(requests)
                remaining -= chunk
            }
            return (productionID, ids)
        }
        if let productionID { print("production \(productionID.uuidString.lowercased())") }
        if ids.count <= 20 {
            ids.forEach { print($0.uuidString.lowercased()) }
        } else {
            print("enqueued \(ids.count) \(kind) jobs")
        }
    }
}

extension JobPriority: ExpressibleByArgument {}

/// Names for productions: a name maps to a stable id, so `--production nightly` twice means one production.
enum ProductionName {
    static func id(for name: String) -> UUID {
        // Stable name-based id (FNV-1a over the name, spread over 128 bits).
        var a: UInt64 = 0xcbf2_9ce4_8422_2325, b: UInt64 = 0x8422_2325_cbf2_9ce4
        for byte in name.utf8 {
            a = (a ^ UInt64(byte)) &* 0x100_0000_01b3
            b = (b ^ UInt64(byte)) &* 0x100_0000_01b3 &+ 7
        }
        var bytes = [UInt8](repeating: 0, count: 16)
        for i in 0..<8 { bytes[i] = UInt8(truncatingIfNeeded: a >> (8 * UInt64(i))); bytes[8 + i] = UInt8(truncatingIfNeeded: b >> (8 * UInt64(i))) }
        bytes[6] = (bytes[6] & 0x0f) | 0x50 // version 5-style
        bytes[8] = (bytes[8] & 0x3f) | 0x80
        return UUID(uuid: (bytes[0], bytes[1], bytes[2], bytes[3], bytes[4], bytes[5], bytes[6], bytes[7],
                           bytes[8], bytes[9], bytes[10], bytes[11], bytes[12], bytes[13], bytes[14], bytes[15]))
    }
}
