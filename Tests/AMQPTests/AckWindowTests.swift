@testable import AMQP
import Testing

@Suite(.timeLimit(.minutes(2))) struct AckWindowTests {
    @Test func contiguousPrefixIsOneMultipleAck() {
        var window = AckWindow()
        for tag in 1...5 { window.insert(UInt64(tag)) }
        window.complete(1); window.complete(2); window.complete(3)
        let (multiple, singles) = window.takeAckable()
        #expect(multiple == 3)
        #expect(singles.isEmpty)
        #expect(!window.isEmpty)
    }

    @Test func completionsAfterAGapGoOneByOne() {
        var window = AckWindow()
        for tag in 1...6 { window.insert(UInt64(tag)) }
        window.complete(1); window.complete(4); window.complete(6)
        let first = window.takeAckable()
        #expect(first.multiple == 1)
        #expect(first.singles == [4, 6])
        window.complete(2); window.complete(3); window.complete(5)
        let second = window.takeAckable()
        #expect(second.multiple == 5)
        #expect(second.singles.isEmpty)
        #expect(window.isEmpty)
    }

    @Test func rejectedTagsLeaveTheWindow() {
        var window = AckWindow()
        for tag in 1...3 { window.insert(UInt64(tag)) }
        window.remove(1)
        window.complete(2); window.complete(3)
        let result = window.takeAckable()
        #expect(result.multiple == 3)
        #expect(window.isEmpty)
    }
}
