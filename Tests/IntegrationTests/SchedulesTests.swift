import Foundation
@testable import RepartoRuntime
import Postgres
import RepartoTestSupport
import Testing

@Suite("Schedules fired by the coordinator leader, against PostgreSQL and RabbitMQ", .timeLimit(.minutes(3)))
struct SchedulesTests {
    /// The ticks of a schedule's jobs (from their idempotency keys), in order.
    func ticks(_ name: String, in cluster: TestCluster) async throws -> [Date] {
        let rows = try await cluster.postgres.query(
            "SELECT idempotency_key AS key FROM jobs WHERE idempotency_key LIKE $1 ORDER BY idempotency_key", ["schedule:\(name):%"])
        let formatter = ISO8601DateFormatter()
        return try rows.map { row in
            let key = try #require(row.string("key"))
            return try #require(formatter.date(from: String(key.dropFirst("schedule:\(name):".count))), "tick of \(key)")
        }.sorted()
    }

    func record(_ name: String, in cluster: TestCluster) async throws -> ScheduleRecord {
        try await cluster.client.schedule(named: name)
    }

    /// Every second, with two coordinators and the leader stopped half way: each tick is either
    /// enqueued exactly once or counted as missed (a loaded machine may delay the leader past a
    /// tick), never both and never twice, and the ticks keep coming after the leader changes.
    @Test func eachTickIsEnqueuedOnceAcrossTwoCoordinatorsAndALeaderChange() async throws {
        let cluster = try await TestCluster.make()
        try await cluster.client.addSchedule(ScheduleDefinition(name: "ping", cadence: try .every("1s"), NoopJob()))
        let first = cluster.startCoordinator()
        try await cluster.wait(for: "two ticks") { try await ticks("ping", in: cluster).count >= 2 }
        let second = cluster.startCoordinator()
        try await first.stop()
        let beforeChange = try await ticks("ping", in: cluster).count
        try await cluster.wait(for: "three ticks after the leader stopped") {
            try await ticks("ping", in: cluster).count >= beforeChange + 3
        }
        try await second.stop()

        let fired = try await ticks("ping", in: cluster)
        let schedule = try await record("ping", in: cluster)
        #expect(Set(fired).count == fired.count, "no tick twice")
        #expect(fired.allSatisfy { $0.timeIntervalSince1970.rounded() == $0.timeIntervalSince1970 }, "ticks on whole seconds")
        let span = Int(((fired.last ?? .distantPast).timeIntervalSince(fired.first ?? .distantPast)).rounded())
        #expect(fired.count + schedule.missedTicks == span + 1, "every tick in the span enqueued or counted missed: \(fired)")
        #expect(schedule.lastJobID != nil && (schedule.nextRunAt ?? .distantPast) > (fired.last ?? .distantFuture))
        await cluster.shutdown()
    }

    /// Ticks that fell due while no coordinator ran: the schedule runs once for all of them, counts
    /// them as missed, and continues from its next future tick.
    @Test func ticksMissedWhileNoCoordinatorRanRunOnceOnRecovery() async throws {
        let cluster = try await TestCluster.make()
        let added = try await cluster.client.addSchedule(ScheduleDefinition(name: "daily", cadence: try .every("1d"), NoopJob()))
        let upcoming = try #require(added.schedule.nextRunAt)
        // As if the last coordinator stopped three days ago: due since then, two more ticks since.
        _ = try await cluster.postgres.query("UPDATE schedules SET next_run_at = next_run_at - interval '3 days' WHERE name = 'daily'")
        let coordinator = cluster.startCoordinator()
        try await cluster.wait(for: "the overdue tick to run") { try await record("daily", in: cluster).lastJobID != nil }
        try await coordinator.stop()

        let fired = try await ticks("daily", in: cluster)
        #expect(fired == [upcoming.addingTimeInterval(-3 * 86_400)], "one job, for the oldest overdue tick")
        let schedule = try await record("daily", in: cluster)
        #expect(schedule.missedTicks == 2)
        #expect(schedule.nextRunAt == upcoming, "continues from its next future tick")
        await cluster.shutdown()
    }

    /// A paused schedule fires nothing while a coordinator passes over it; resumed, it starts
    /// from its next tick after now, not from the ticks it slept through.
    @Test func aPausedScheduleFiresNothingAndResumesFromNow() async throws {
        let cluster = try await TestCluster.make()
        try await cluster.client.addSchedule(ScheduleDefinition(name: "held", cadence: try .every("1s"), NoopJob()))
        try await cluster.client.pauseSchedule(named: "held")
        _ = try await cluster.postgres.query("UPDATE schedules SET next_run_at = now() - interval '1 hour' WHERE name = 'held'")
        // A witness fired by the same pass that skips the paused one.
        try await cluster.client.addSchedule(ScheduleDefinition(name: "witness", cadence: try .every("1h"), NoopJob()))
        _ = try await cluster.postgres.query("UPDATE schedules SET next_run_at = now() - interval '1 second' WHERE name = 'witness'")
        let coordinator = cluster.startCoordinator()
        try await cluster.wait(for: "the witness to fire") { try await record("witness", in: cluster).lastJobID != nil }
        #expect(try await ticks("held", in: cluster).isEmpty, "paused: nothing enqueued")
        // What `reparto status` shows (ops.schedules).
        let shown = try await OpsView.schedules.rows(on: cluster.postgres)
        #expect(shown.map { [$0.string("name"), $0.string("cadence"), $0.string("state")] }
                == [["held", "every 1 s", "paused"], ["witness", "every 3600 s", "active"]])
        #expect(shown.last?.string("last_job_id") != nil, "the witness's job")

        let resumed = try await cluster.client.resumeSchedule(named: "held")
        let now = try #require(try await cluster.postgres.query("SELECT now() AS now").first?.date("now"))
        #expect(!resumed.paused)
        #expect((resumed.nextRunAt ?? .distantPast) > now.addingTimeInterval(-1), "from now, not an hour ago")
        try await cluster.wait(for: "the resumed schedule to fire") { try await ticks("held", in: cluster).count >= 1 }
        try await coordinator.stop()
        let fired = try await ticks("held", in: cluster)
        #expect(fired.allSatisfy { $0 > now.addingTimeInterval(-1) }, "none of the hour it slept through: \(fired)")
        await cluster.shutdown()
    }

    /// The scheduled job runs like any other: a worker picks it up.
    @Test func aScheduledJobIsRunByAWorker() async throws {
        let cluster = try await TestCluster.make()
        try await cluster.client.addSchedule(ScheduleDefinition(name: "work", cadence: try .every("1s"), NoopJob(), maxAttempts: 2))
        let coordinator = cluster.startCoordinator()
        let worker = cluster.startWorker()
        try await cluster.wait(for: "a scheduled job to succeed") {
            try await cluster.count("SELECT count(*)::int AS n FROM jobs WHERE idempotency_key LIKE 'schedule:work:%' AND state = 'succeeded'") >= 1
        }
        #expect(try await cluster.count("SELECT min(max_attempts) AS n FROM jobs WHERE idempotency_key LIKE 'schedule:work:%'") == 2)
        try await worker.stop()
        try await coordinator.stop()
        await cluster.shutdown()
    }

    @Test func theCommandsAddListPauseResumeAndDeleteWithOneLineErrors() async throws {
        let cluster = try await TestCluster.make()
        let environment = try cluster.processEnvironment()
        func run(_ arguments: [String]) async throws -> RepartoProcess.Output {
            try await RepartoProcess.run(["schedule"] + arguments, environment: environment)
        }
        func expectOneErrorLine(_ output: RepartoProcess.Output, mentioning text: String,
                                sourceLocation: SourceLocation = #_sourceLocation) {
            #expect(output.status != 0, sourceLocation: sourceLocation)
            let lines = output.stderr.split(separator: "\n")
            #expect(lines.count == 1 && lines[0].hasPrefix("Error: ") && lines[0].contains(text), "stderr: \(output.stderr)",
                    sourceLocation: sourceLocation)
        }

        let add = try await run(["add", "nightly", "sleep", "--cron", "30 2 * * *", "--timezone", "Europe/Berlin",
                                 "--params", #"{"seconds": 0.1}"#])
        #expect(add.status == 0, "\(add.stderr)")
        #expect(add.stdout.hasPrefix("added schedule nightly: cron 30 2 * * * (Europe/Berlin), next run 20"), "\(add.stdout)")
        let every = try await run(["add", "ping", "noop", "--every", "30s"])
        #expect(every.status == 0 && every.stdout.hasPrefix("added schedule ping: every 30s"), "\(every.stdout)\(every.stderr)")
        let replaced = try await run(["add", "ping", "noop", "--every", "1m"])
        #expect(replaced.stdout.hasPrefix("replaced schedule ping: every 1m"), "\(replaced.stdout)")

        let list = try await run(["list", "--json"])
        let objects = try #require(try JSONSerialization.jsonObject(with: Data(list.stdout.utf8)) as? [[String: Any]])
        #expect(objects.compactMap { $0["name"] as? String } == ["nightly", "ping"])
        #expect(objects.first?["timezone"] as? String == "Europe/Berlin")
        #expect((objects.first?["params"] as? [String: Any])?["seconds"] as? Double == 0.1)
        #expect(objects.last?["every"] as? String == "1m")

        #expect(try await run(["pause", "ping"]).stdout == "paused schedule ping\n")
        #expect(try await record("ping", in: cluster).paused)
        let table = try await run(["list"])
        #expect(table.stdout.hasPrefix("name") && table.stdout.contains("paused"))
        #expect(try await run(["resume", "ping"]).stdout.hasPrefix("resumed schedule ping, next run 20"))
        #expect(try await run(["delete", "nightly"]).stdout == "deleted schedule nightly\n")
        #expect(try await cluster.client.schedules().map(\.name) == ["ping"])

        expectOneErrorLine(try await run(["add", "x", "noop", "--cron", "61 * * * *"]), mentioning: "minute '61' is out of range")
        expectOneErrorLine(try await run(["add", "x", "noop", "--cron", "@daily", "--timezone", "Mars/Olympus"]),
                           mentioning: "unknown time zone 'Mars/Olympus'")
        expectOneErrorLine(try await run(["add", "x", "noop", "--every", "5 parsecs"]), mentioning: "bad interval '5 parsecs'")
        expectOneErrorLine(try await run(["add", "x", "noop"]), mentioning: "give either --cron or --every")
        expectOneErrorLine(try await run(["add", "x", "no-such-kind", "--every", "1m"]), mentioning: "unknown job kind 'no-such-kind'")
        expectOneErrorLine(try await run(["add", "x", "noop", "--cron", "0 0 30 2 *"]), mentioning: "never fires")
        expectOneErrorLine(try await run(["pause", "nope"]), mentioning: "no schedule named 'nope'")
        expectOneErrorLine(try await run(["delete", "nope"]), mentioning: "no schedule named 'nope'")
        #expect(try await cluster.client.schedules().map(\.name) == ["ping"], "nothing added by the refused commands")
        await cluster.shutdown()
    }
}
