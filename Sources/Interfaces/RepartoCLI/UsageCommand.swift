import ArgumentParser
import Foundation
import Generation
import RepartoRuntime
import TerminalText

/// `reparto usage`: what the generation providers were asked for, from the usage ledger.
struct UsageCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "usage",
        abstract: "Show generation usage (tokens, characters, images) per provider and model.",
        discussion: """
            Sums the generation_usage table: one line per provider call that answered; reuses count apart. \
            With REPARTO_GENERATION_PRICES (e.g. "openai/gpt-4o-mini=in:0.15,out:0.60; openai/gpt-image-1=image:0.04", \
            per million tokens or characters, per image) each line has its cost.
            """)

    @OptionGroup var cluster: ClusterOptions
    @Option(name: .long, help: "Only this production (id or name).") var production: String?
    @Option(name: .long, help: "Only the last period: 30m, 24h, 7d (default: everything).") var since: String?
    @Flag(name: .long, help: "Print JSON instead of a table.") var json = false

    func validate() throws {
        if let since, Self.seconds(since) == nil { throw ValidationError("--since takes a number with s, m, h or d, e.g. 7d") }
    }

    func run() async throws {
        let configuration = try cluster.configuration
        let prices: UsagePrices
        do { prices = try UsagePrices(parsing: configuration[UsagePrices.variable] ?? "") } catch { throw CLIError(error.description) }
        let start = since.flatMap(Self.seconds).map { Date().addingTimeInterval(-$0) }
        let productionID = production.map(ProductionName.resolve)
        var lines = try await cluster.withPostgres(maxConnections: 1, logger: cluster.makeLogger("reparto.usage")) { postgres in
            try await UsageLedger(postgres: postgres).summary(since: start, production: productionID)
        }
        for index in lines.indices { lines[index].cost = prices.cost(of: lines[index]) }
        print(json ? try JSONText.pretty(lines) : GenerationText.usage(lines))
    }

    /// `90s`, `30m`, `24h`, `7d` as seconds.
    static func seconds(_ text: String) -> Double? {
        guard let unit = text.last, let value = Double(text.dropLast()), value >= 0, value.isFinite else { return nil }
        switch unit {
        case "s": return value
        case "m": return value * 60
        case "h": return value * 3_600
        case "d": return value * 86_400
        default: return nil
        }
    }
}
