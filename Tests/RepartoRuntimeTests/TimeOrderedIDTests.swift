@testable import RepartoRuntime
import Foundation
import Testing

@Suite(.timeLimit(.minutes(1))) struct TimeOrderedIDTests {
    @Test func carriesVersionSevenTheRFCVariantAndTheTime() throws {
        let before = UInt64(Date().timeIntervalSince1970 * 1000)
        let id = UUID.timeOrdered()
        let after = UInt64(Date().timeIntervalSince1970 * 1000)
        let bytes = id.uuid
        #expect(bytes.6 >> 4 == 7)
        #expect(bytes.8 >> 6 == 0b10)
        let milliseconds = try #require(id.timeOrderedMilliseconds)
        #expect(milliseconds >= before && milliseconds <= after)
        // The text form shows the version where RFC 9562 puts it.
        #expect(Array(id.uuidString)[14] == "7")
    }

    @Test func theSubMillisecondFractionOrdersIDsWithinAMillisecond() {
        var early = timespec(), late = timespec()
        early.tv_sec = 1_764_000_000; early.tv_nsec = 123_000_100
        late.tv_sec = 1_764_000_000; late.tv_nsec = 123_999_000
        let a = UUID.timeOrdered(at: early), b = UUID.timeOrdered(at: late)
        #expect(a.timeOrderedMilliseconds == 1_764_000_000_123)
        #expect(b.timeOrderedMilliseconds == 1_764_000_000_123)
        #expect(a.uuidString < b.uuidString)
    }

    @Test func idsMadeLaterSortLaterAcrossMilliseconds() {
        var time = timespec()
        time.tv_sec = 1_764_000_000
        let ids = (0..<50).map { step -> UUID in
            time.tv_nsec = step * 3_000_000
            return UUID.timeOrdered(at: time)
        }
        #expect(ids.map(\.uuidString) == ids.map(\.uuidString).sorted())
    }

    @Test func theRandomBitsDiffer() {
        let time = timespec.now
        let ids = Set((0..<1000).map { _ in UUID.timeOrdered(at: time) })
        #expect(ids.count == 1000)
    }

    @Test func randomUUIDsCarryNoTime() {
        #expect(UUID(uuidString: "3f2504e0-4f89-41d3-9a0c-0305e82c3301")?.timeOrderedMilliseconds == nil)
    }

    @Test func jobRequestsAndProductionsGetTimeOrderedIDs() {
        let request = JobRequest(kind: "noop", queue: "default", parameters: Data("{}".utf8))
        #expect(request.id.timeOrderedMilliseconds != nil)
    }
}
