import Foundation
@testable import RepartoBench
import Testing

@Suite("CPU by role: who a process is and what it spent", .timeLimit(.minutes(1)))
struct ProcessCPUBreakdownTests {
    @Test(arguments: [
        (["/usr/bin/reparto", "worker", "--concurrency", "64"], ProcessCPUBreakdown.Role.workers),
        (["reparto", "coordinator"], .coordinator),
        ([".build/release/reparto", "--log-level", "warning"], .otherReparto),
        (["reparto", "dashboard", "worker"], .otherReparto),
        (["reparto"], .otherReparto),
    ])
    func aRepartoProcessIsNamedByItsSubcommand(arguments: [String], role: ProcessCPUBreakdown.Role) {
        #expect(ProcessCPUBreakdown.role(arguments: arguments) == role)
    }

    @Test func theServersAreNamedByTheirCommand() {
        #expect(ProcessCPUBreakdown.role(pid: 10, comm: "postgres", me: 1) == .postgres)
        #expect(ProcessCPUBreakdown.role(pid: 10, comm: "beam.smp", me: 1) == .rabbitmq)
        #expect(ProcessCPUBreakdown.role(pid: 10, comm: "bash", me: 1) == nil)
        #expect(ProcessCPUBreakdown.role(pid: 1, comm: "anything", me: 1) == .bench)
    }

    @Test func whatWasSpentIsTheDifferenceAndNeverNegative() {
        let before = ProcessCPUBreakdown(seconds: [.postgres: 2, .workers: 1, .rabbitmq: 5])
        let after = ProcessCPUBreakdown(seconds: [.postgres: 3.5, .workers: 1.25, .rabbitmq: 4])
        let spent = after.spent(since: before)
        #expect(spent.seconds[.postgres] == 1.5)
        #expect(spent.seconds[.workers] == 0.25)
        #expect(spent.seconds[.rabbitmq] == 0, "a broker process that restarted took its time with it")
        #expect(spent.total == 1.75)
        let perJob = spent.microsecondsPer(1000)
        #expect(perJob.total == 1750)
        #expect(perJob.byRole.first { $0.0 == .postgres }?.1 == 1500)
    }

    @Test func theReportCountsTheWorkersAndCoordinatorsItRanWith() {
        let before = ProcessCPUBreakdown(seconds: [.workers: 1], processes: [.workers: 1])
        let after = ProcessCPUBreakdown(seconds: [.workers: 2], processes: [.workers: 2, .coordinator: 1])
        var report = JobsBenchReport(jobs: 10, failed: 0, seconds: 1, enqueueSeconds: 1, p50: 1, p99: 2, max: 3)
        report.cpu = after.spent(since: before)
        #expect(report.json.contains(#""processes":{"workers":2,"coordinators":1}"#))
        #expect(report.processText == "2 workers, 1 coordinator")
    }

    @Test func thisProcessIsCountedAsTheBench() {
        let before = ProcessCPUBreakdown.now()
        var x = 0.0
        for i in 0..<3_000_000 { x += sqrt(Double(i)) }  // some CPU of our own to see
        #expect(x > 0)
        let spent = ProcessCPUBreakdown.now().spent(since: before)
        #expect((spent.seconds[.bench] ?? 0) > 0)
    }
}
