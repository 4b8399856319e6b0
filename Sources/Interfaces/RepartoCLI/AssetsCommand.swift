import AssetSweep
import ArgumentParser
import Assets
import Foundation
import RepartoRuntime
import Composition
import TerminalText
import Threading

/// `reparto assets usage|sweep`: the asset volume's size by area, and its sweep on demand.
struct AssetsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "assets",
        abstract: "Show the asset volume's usage, or sweep files nothing references.",
        subcommands: [Usage.self, Sweep.self])

    struct Usage: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Files and bytes by area (productions, sources, cache/<kind>), and how much of each nothing references.")

        @OptionGroup var cluster: ClusterOptions
        @Flag(help: "Print JSON.") var json = false

        func run() async throws {
            let usage = try await cluster.withAssetSweeper("reparto.assets", policy: .standard) { try await $0.usage() }
            print(json ? try JSONText.pretty(usage) : HousekeepingText.usage(usage), terminator: json ? "\n" : "")
        }
    }

    struct Sweep: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Remove files nothing references once idle for the grace, and cap the cache.",
            discussion: """
                The grace comes from REPARTO_ASSET_GRACE (default 1h, at least 1m), the cache cap from \
                REPARTO_CACHE_MAX (e.g. 20GB; default none). Workers run the same sweep as the assets.sweep job, \
                which the coordinator schedules every REPARTO_ASSET_SWEEP_EVERY (default 1h, never to stop).
                """)

        @OptionGroup var cluster: ClusterOptions
        @Flag(help: "Count what would be removed; remove nothing.") var dryRun = false
        @Option(help: "Keep unreferenced files younger than this (1h, 30m; at least 1m).") var grace: String?

        func run() async throws {
            var policy = try AssetSweepPolicy(configuration: try cluster.configuration)
            if let grace { policy.grace = try AssetSweepPolicy.grace(grace, setting: "--grace") }
            let report = try await cluster.withAssetSweeper("reparto.assets", policy: policy) { try await $0.sweep(dryRun: dryRun) }
            print(HousekeepingText.sweep(report, policy: policy, dryRun: dryRun))
            if report.failed.files > 0 { throw ExitCode.failure }  // the line above names the first
        }
    }
}

extension ClusterOptions {
    /// Runs `body` with a sweeper over the configured asset volume and database.
    func withAssetSweeper<T>(_ label: String, policy: AssetSweepPolicy, _ body: (AssetSweeper) async throws -> T) async throws -> T {
        let root = ClusterSettings.assetsRoot(try configuration)
        let store = try await BlockingWork.run { try AssetStore(root: root) }
        return try await withPostgres(logger: makeLogger(label)) { try await body(AssetSweeper(store: store, postgres: $0, policy: policy, references: Kinds.assetReferences)) }
    }
}
