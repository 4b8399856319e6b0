import Foundation
import Testing
@testable import TableRead

/// The table read's stage decisions (``TableReadPlan/step(after:parsed:enrichSucceeded:pending:linesPerJob:)``),
/// without a server: what follows each finished stage.
@Suite("table-read plan: the next step", .timeLimit(.minutes(1)))
struct TableReadPlanStepTests {
    func line(_ order: Int) -> TableReadLine {
        TableReadLine(chapterIndex: 0, orderIndex: order, elementType: "dialogue", speaker: "ODILE", voice: "en",
                      provider: "espeak-ng", language: "en", text: "line \(order)", contentKey: "k\(order)", sceneIndex: 1)
    }

    @Test func aSuccessfulParseEnrichesItsDocumentAndAFailedOneFinishes() {
        let document = UUID()
        #expect(TableReadPlan.step(after: .parse, parsed: document, enrichSucceeded: false, pending: [], linesPerJob: 4)
                == .enrich(documentID: document))
        #expect(TableReadPlan.step(after: .parse, parsed: nil, enrichSucceeded: false, pending: [], linesPerJob: 4) == .finish)
    }

    @Test func enrichmentSplitsThePendingLinesIntoJobsOfAtMostLinesPerJob() {
        let pending = (1...10).map(line)
        guard case .generate(let batches) = TableReadPlan.step(after: .enrich, parsed: nil, enrichSucceeded: true,
                                                               pending: pending, linesPerJob: 4) else {
            Issue.record("expected generate jobs")
            return
        }
        // 10 lines by 4: 4 + 4 + 2, in script order, each line once.
        #expect(batches.map(\.count) == [4, 4, 2])
        #expect(batches.flatMap { $0 } == pending)
        // A non-positive size still makes progress: one line a job.
        guard case .generate(let single) = TableReadPlan.step(after: .enrich, parsed: nil, enrichSucceeded: true,
                                                              pending: Array(pending.prefix(3)), linesPerJob: 0) else {
            Issue.record("expected generate jobs")
            return
        }
        #expect(single.map(\.count) == [1, 1, 1])
    }

    @Test func enrichmentWithEveryLineAlreadySpokenGoesStraightToAssembly() {
        #expect(TableReadPlan.step(after: .enrich, parsed: nil, enrichSucceeded: true, pending: [], linesPerJob: 4) == .assemble)
    }

    @Test func aFailedEnrichmentFinishesAndLaterStagesFollowTheirOrder() {
        #expect(TableReadPlan.step(after: .enrich, parsed: nil, enrichSucceeded: false, pending: [line(1)], linesPerJob: 4)
                == .finish)
        #expect(TableReadPlan.step(after: .generate, parsed: nil, enrichSucceeded: false, pending: [], linesPerJob: 4) == .assemble)
        #expect(TableReadPlan.step(after: .assemble, parsed: nil, enrichSucceeded: false, pending: [], linesPerJob: 4) == .finish)
        #expect(TableReadPlan.step(after: nil, parsed: nil, enrichSucceeded: false, pending: [], linesPerJob: 4) == .finish)
    }
}
