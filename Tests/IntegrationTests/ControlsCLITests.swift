import Foundation
import RepartoRuntime
import RepartoTestSupport
import Testing

@Suite("reparto limit, pause and resume", .timeLimit(.minutes(2)))
struct ControlsCLITests {
    private func expectOneErrorLine(_ output: RepartoProcess.Output, mentioning text: String,
                                    sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(output.status != 0, sourceLocation: sourceLocation)
        let lines = output.stderr.split(separator: "\n")
        #expect(lines.count == 1 && lines[0].hasPrefix("Error: ") && lines[0].contains(text), "stderr: \(output.stderr)",
                sourceLocation: sourceLocation)
    }

    @Test func limitsAreSetListedAndDeletedAndBadTermsRefused() async throws {
        let cluster = try await TestCluster.make()
        let environment = try cluster.processEnvironment()
        let set = try await RepartoProcess.run(["limit", "set", "provider:openai", "--rate", "600/min", "--burst", "5",
                                                "--concurrency", "8", "--budget", "90000/min"], environment: environment)
        #expect(set.status == 0, "\(set.stderr)")
        #expect(set.stdout == "limit provider:openai: 10/s burst 5, concurrency 8, budget 90000 per 60 s\n")

        let list = try await RepartoProcess.run(["limit", "list", "--json"], environment: environment)
        #expect(list.status == 0, "\(list.stderr)")
        let limits = try #require(try JSONSerialization.jsonObject(with: Data(list.stdout.utf8)) as? [[String: Any]])
        #expect(limits.count == 1)
        #expect(limits.first?["name"] as? String == "provider:openai")
        #expect(limits.first?["rate_per_second"] as? Double == 10)
        #expect(limits.first?["concurrency"] as? Int == 8)
        #expect(limits.first?["budget_left"] as? Double == 90000)
        let table = try await RepartoProcess.run(["limit", "list"], environment: environment)
        #expect(table.stdout.contains("provider:openai") && table.stdout.hasPrefix("name"))
        let status = try await RepartoProcess.run(["status"], environment: environment)
        #expect(status.stdout.contains("== limits ==") && status.stdout.contains("provider:openai"))

        expectOneErrorLine(try await RepartoProcess.run(["limit", "set", "x", "--rate", "20/fortnight"], environment: environment),
                           mentioning: "invalid --rate '20/fortnight'")
        expectOneErrorLine(try await RepartoProcess.run(["limit", "set", "x"], environment: environment),
                           mentioning: "needs at least one of --rate, --concurrency, --budget")
        expectOneErrorLine(try await RepartoProcess.run(["limit", "delete", "nope"], environment: environment),
                           mentioning: "no limit with id nope")
        let delete = try await RepartoProcess.run(["limit", "delete", "provider:openai"], environment: environment)
        #expect(delete.status == 0 && delete.stdout == "deleted limit provider:openai\n")
        #expect(try await cluster.client.limits().isEmpty)
        await cluster.shutdown()
    }

    @Test func pauseAndResumeNameAQueueOrKindAndSayWhatTheyDid() async throws {
        let cluster = try await TestCluster.make()
        let environment = try cluster.processEnvironment()
        let pause = try await RepartoProcess.run(["pause", "sleep"], environment: environment)
        #expect(pause.status == 0 && pause.stdout == "paused kind sleep\n", "\(pause.stderr)")
        #expect(try await cluster.client.pauses().map(\.target) == [PauseTarget(.kind, "sleep")])
        let again = try await RepartoProcess.run(["pause", "sleep"], environment: environment)
        #expect(again.stdout == "kind sleep was already paused\n")
        let queue = try await RepartoProcess.run(["pause", "nightly", "--queue"], environment: environment)
        #expect(queue.status == 0 && queue.stdout == "paused queue nightly\n")
        let status = try await RepartoProcess.run(["status", "--json"], environment: environment)
        let object = try #require(try JSONSerialization.jsonObject(with: Data(status.stdout.utf8)) as? [String: Any])
        #expect((object["pauses"] as? [[String: Any]])?.count == 2)

        expectOneErrorLine(try await RepartoProcess.run(["pause", "no-such-thing"], environment: environment),
                           mentioning: "no queue or job kind 'no-such-thing'")
        let resume = try await RepartoProcess.run(["resume", "sleep"], environment: environment)
        #expect(resume.status == 0 && resume.stdout == "resumed kind sleep (0 parked jobs released)\n", "\(resume.stderr)")
        expectOneErrorLine(try await RepartoProcess.run(["resume", "sleep"], environment: environment),
                           mentioning: "no paused kind with id sleep")
        expectOneErrorLine(try await RepartoProcess.run(["enqueue", "sleep", "--params", "{\"seconds\": 0}", "--cost=-1"],
                                                        environment: environment),
                           mentioning: "--cost must be a number ≥ 0")
        let limited = try await RepartoProcess.run(["enqueue", "sleep", "--params", "{\"seconds\": 0}", "--limit", "provider:x",
                                                    "--cost", "2.5"], environment: environment)
        #expect(limited.status == 0, "\(limited.stderr)")
        let row = try #require(try await cluster.postgres.query("SELECT limit_key, cost FROM jobs").first)
        #expect(row.string("limit_key") == "provider:x" && row.double("cost") == 2.5)
        await cluster.shutdown()
    }
}
