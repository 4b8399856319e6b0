@testable import RepartoRuntime
import Foundation
import Testing

private func snapshot(dead: Int = 0) -> ProductionSnapshot {
    ProductionSnapshot(id: UUID(), name: "p", plan: "batch", stage: "main", parameters: Data("{}".utf8),
                       dead: dead, cancelled: 0)
}

/// The coordinator's stage transitions and the producer's chunking, without a server.
@Suite(.timeLimit(.minutes(1))) struct StageTransitionTests {
    @Test func theNextStagesJobsBelongToTheProductionAndStage() {
        let production = snapshot()
        let request = JobRequest(kind: "k", queue: "default", parameters: Data("{}".utf8),
                                 options: JobOptions(productionID: UUID(), stage: "old"))
        guard case .move(let stage, let jobs) = StageTransition.decide(.next(stage: "enrich", jobs: [request, request]),
                                                                       for: production) else {
            Issue.record("expected a move")
            return
        }
        #expect(stage == "enrich")
        #expect(jobs.count == 2)
        #expect(jobs.allSatisfy { $0.options.productionID == production.id && $0.options.stage == "enrich" })
        #expect(jobs.map(\.kind) == ["k", "k"])
    }

    @Test func aNextStageWithoutJobsStillMoves() {
        #expect(StageTransition.decide(.next(stage: "assemble", jobs: []), for: snapshot()) == .move(stage: "assemble", jobs: []))
    }

    @Test func finishingWithDeadJobsIsCompletedWithFailures() {
        #expect(StageTransition.decide(.finish, for: snapshot(dead: 2)) == .finish(withFailures: true))
    }

    @Test func finishingWithoutDeadJobsIsCompleted() {
        #expect(StageTransition.decide(.finish, for: snapshot(dead: 0)) == .finish(withFailures: false))
    }

    @Test func enqueueChunksCoverEveryIndexOnceInOrder() {
        let chunks = JobClient.chunks(count: 12_001, size: 5000)
        #expect(chunks == [0..<5000, 5000..<10_000, 10_000..<12_001])
    }

    @Test func enqueueChunksOfNothingAreNone() {
        #expect(JobClient.chunks(count: 0, size: 5000).isEmpty)
        #expect(JobClient.chunks(count: 3, size: 0) == [0..<1, 1..<2, 2..<3])
        #expect(JobClient.enqueueChunkSize == 5000)
    }

    @Test func aProductionNameMapsToAStableVersion5StyleID() {
        let id = ProductionName.id(for: "nightly")
        #expect(id == ProductionName.id(for: "nightly"))
        #expect(id != ProductionName.id(for: "nightly2"))
        #expect(id.uuidString.lowercased().dropFirst(14).first == "5")
    }

    @Test func aProductionReferenceThatIsAUUIDIsThatUUID() {
        let id = UUID()
        #expect(ProductionName.resolve(id.uuidString) == id)
        #expect(ProductionName.resolve(id.uuidString.lowercased()) == id)
        #expect(ProductionName.resolve("nightly") == ProductionName.id(for: "nightly"))
    }
}
