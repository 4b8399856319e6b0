import RepartoBench
import Testing

@Suite("bench analyze: the synthetic script and the report", .timeLimit(.minutes(1)))
struct AnalysisBenchmarkTests {
    @Test func theSyntheticScriptHasExactlyTheScenesAskedFor() throws {
        #expect(try AnalysisBenchmark.sceneCount(of: AnalysisBenchmark.script(scenes: 120)) == 120)
        #expect(try AnalysisBenchmark.sceneCount(of: AnalysisBenchmark.script(scenes: 3)) == 3)
    }

    @Test func theReportComparesTheAchievedRateWithTheLimit() {
        let report = AnalysisBenchmark.Report(scenes: 120, rate: 20, burst: 1, workers: 2, admitted: 120, firstToLast: 11.9,
                                              total: 7, ideal: 6.75, summaries: 120, state: "completed")
        #expect(abs(report.achievedRate - 10) < 1e-9, "119 intervals in 11.9 s")
        #expect(report.description.contains("= 10.00/s (50.0 % of the limit)"))
        #expect(abs(AnalysisBenchmark.ideal(scenes: 120, rate: 20, burst: 1, roundTrip: 0.2) - 6.75) < 1e-9)
        #expect(abs(AnalysisBenchmark.ideal(scenes: 120, rate: 20, burst: 5, roundTrip: 0.2) - 6.55) < 1e-9, "the burst starts at once")
    }
}
