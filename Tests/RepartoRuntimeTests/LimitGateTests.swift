import Foundation
@testable import RepartoRuntime
import Testing

@Suite("Limit admission (LimitGate), without servers", .timeLimit(.minutes(1)))
struct LimitGateTests {
    let t0 = Date(timeIntervalSince1970: 1_800_000_000)

    func gate(rate: Double? = nil, burst: Double? = nil, concurrency: Int? = nil, budget: Double? = nil,
              window: Double? = nil) -> LimitGate {
        .full(LimitSpec(name: "test", rate: rate, burst: burst, concurrency: concurrency, budget: budget, budgetWindow: window), at: t0)
    }

    @Test func aFullBucketAdmitsTheBurstThenReservesTokensSpacedOneOverRateApart() {
        var gate = gate(rate: 10, burst: 3)
        let verdicts = (0..<6).map { _ in gate.admit(.init(id: UUID()), at: t0) }
        #expect(verdicts.prefix(3).allSatisfy { $0 == .run })
        #expect(verdicts[3] == .wait(until: t0.addingTimeInterval(0.1), reserved: true))
        #expect(verdicts[4] == .wait(until: t0.addingTimeInterval(0.2), reserved: true))
        #expect(verdicts[5] == .wait(until: t0.addingTimeInterval(0.3), reserved: true))
        #expect(gate.tokens == -3)
        #expect(gate.running == 3)
    }

    @Test func aReservedJobRunsAtItsInstantWithoutTakingASecondToken() {
        var gate = gate(rate: 10, burst: 1)
        #expect(gate.admit(.init(id: UUID()), at: t0) == .run)
        let reserved = UUID()
        #expect(gate.admit(.init(id: reserved), at: t0) == .wait(until: t0.addingTimeInterval(0.1), reserved: true))
        let back = t0.addingTimeInterval(0.1)
        #expect(gate.admit(.init(id: reserved, reserved: true), at: back) == .run)
        #expect(abs(gate.tokens) < 1e-6, "the reservation's token was taken once, when it was reserved")
        // A new job at the same instant finds the bucket empty.
        #expect(gate.admit(.init(id: UUID()), at: back) == .wait(until: back.addingTimeInterval(0.1), reserved: true))
    }

    @Test func theBucketRefillsUpToTheBurstAndNeverBackwards() {
        var gate = gate(rate: 2, burst: 4)
        for _ in 0..<4 { _ = gate.admit(.init(id: UUID()), at: t0) }
        #expect(gate.tokens == 0)
        gate.refill(at: t0.addingTimeInterval(1))
        #expect(gate.tokens == 2)
        gate.refill(at: t0.addingTimeInterval(0.5))  // an admission that read an earlier clock
        #expect(gate.tokens == 2)
        gate.refill(at: t0.addingTimeInterval(100))
        #expect(gate.tokens == 4)
    }

    /// The guarantee the limit documents: over any interval of T seconds at most burst + rate × T
    /// jobs start, whatever the arrivals; and every job eventually starts.
    @Test(arguments: [(rate: 50.0, burst: 1.0), (rate: 50.0, burst: 10.0), (rate: 3.0, burst: 2.0), (rate: 0.5, burst: 1.0)])
    func startsNeverExceedBurstPlusRateOverAnyInterval(rate: Double, burst: Double) {
        var generator = SeededGenerator(state: UInt64(rate * 1000 + burst))
        var gate = gate(rate: rate, burst: burst)
        // Arrivals in clumps (a batch of deliveries) and quiet gaps, over ~20/rate seconds.
        var pending: [(at: Date, request: LimitGate.Request)] = []
        var clock = t0
        for _ in 0..<Int(rate * 20) {
            clock = clock.addingTimeInterval(Double.random(in: 0...(2 / rate), using: &generator))
            for _ in 0..<Int.random(in: 1...4, using: &generator) { pending.append((clock, .init(id: UUID()))) }
        }
        let arrivals = pending.count
        let (starts, _) = admitAll(&gate, pending) { $0 }
        #expect(starts.count == arrivals, "every arrival started")
        expectAtMostBurstPlusRate(starts, rate: rate, burst: burst, over: [1.0 / rate, 1.0, 5.0])
    }

    /// Reserved jobs that come back late — a slow relay or a busy database delivers a whole
    /// run of them at once — still never start more than burst + rate × T in any interval: the
    /// starts bucket defers the excess again, and every job still starts.
    @Test(arguments: [(rate: 20.0, burst: 3.0), (rate: 50.0, burst: 1.0), (rate: 2.0, burst: 2.0)])
    func lateReturnersCannotStartTogether(rate: Double, burst: Double) {
        var generator = SeededGenerator(state: UInt64(rate * 7 + burst))
        var gate = gate(rate: rate, burst: burst)
        let pending: [(at: Date, request: LimitGate.Request)] = (0..<Int(rate * 10)).map { _ in (t0, .init(id: UUID())) }
        let arrivals = pending.count
        // Back late: up to 20 slots, so runs of returners arrive together.
        let (starts, redeferred) = admitAll(&gate, pending) { until in
            until.addingTimeInterval(Double.random(in: 0...(20 / rate), using: &generator))
        }
        #expect(starts.count == arrivals, "every arrival started")
        #expect(redeferred > 0, "late returners found the starts bucket empty and waited again")
        expectAtMostBurstPlusRate(starts, rate: rate, burst: burst, over: [0.0, 1.0 / rate, 1.0, 5.0])
    }

    /// Returners a little late every time (a relay and a broker between the reservation and the
    /// claim) keep their places: the pace stays at the rate instead of drifting below it. Each
    /// late returner used to take a new token and go to the back of the schedule.
    @Test(arguments: [(rate: 5.0, burst: 1.0), (rate: 20.0, burst: 3.0)])
    func aLittleLateEveryTimeStillKeepsThePace(rate: Double, burst: Double) {
        var generator = SeededGenerator(state: UInt64(rate * 13 + burst))
        var gate = gate(rate: rate, burst: burst)
        let jobs = Int(rate * 10)
        let pending: [(at: Date, request: LimitGate.Request)] = (0..<jobs).map { _ in (t0, .init(id: UUID())) }
        // Back 5–60 ms after the instant the gate gave.
        let (starts, _) = admitAll(&gate, pending) { until in until.addingTimeInterval(Double.random(in: 0.005...0.06, using: &generator)) }
        #expect(starts.count == jobs)
        let ideal = (Double(jobs) - burst) / rate
        let span = (starts.last ?? t0).timeIntervalSince(t0)
        #expect(span <= ideal * 1.1 + 0.06, "\(jobs) starts took \(span) s; the rate allows \(ideal) s")
        expectAtMostBurstPlusRate(starts, rate: rate, burst: burst, over: [1.0 / rate, 1.0, 5.0])
    }

    /// Runs every pending arrival through the gate as instant jobs (concurrency plays no part), a
    /// deferred one coming back when `returns` says; the start times, sorted, and how many
    /// reserved jobs were deferred again.
    private func admitAll(_ gate: inout LimitGate, _ arrivals: [(at: Date, request: LimitGate.Request)],
                          returns: (Date) -> Date) -> (starts: [Date], redeferred: Int) {
        var pending = arrivals
        var starts: [Date] = []
        var redeferred = 0
        while !pending.isEmpty {
            pending.sort { $0.at < $1.at }
            let next = pending.removeFirst()
            switch gate.admit(next.request, at: next.at) {
            case .run:
                starts.append(next.at)
                gate.running -= 1
            case .wait(let until, let reserved):
                #expect(until > next.at)
                if next.request.reserved { redeferred += 1 }
                var request = next.request
                request.reserved = reserved
                pending.append((returns(until), request))
            }
        }
        return (starts.sorted(), redeferred)
    }

    /// At most burst + rate × T starts in any window of each length T from a start.
    private func expectAtMostBurstPlusRate(_ starts: [Date], rate: Double, burst: Double, over intervals: [Double]) {
        for (index, start) in starts.enumerated() {
            for interval in intervals {
                let end = start.addingTimeInterval(interval)
                let inside = starts[index...].prefix { $0 <= end }.count
                #expect(Double(inside) <= burst + rate * interval + 1e-6,
                        "\(inside) starts in \(interval) s from \(start.timeIntervalSince(t0)) at \(rate)/s burst \(burst)")
            }
        }
    }

    @Test func atTheConcurrencyCapAJobWaitsWithoutTakingAToken() {
        var gate = gate(rate: 10, burst: 5, concurrency: 2)
        #expect(gate.admit(.init(id: UUID()), at: t0) == .run)
        #expect(gate.admit(.init(id: UUID()), at: t0) == .run)
        let tokens = gate.tokens
        #expect(gate.admit(.init(id: UUID()), at: t0) == .wait(until: t0.addingTimeInterval(LimitGate.concurrencyRecheck), reserved: false))
        #expect(gate.tokens == tokens)
        // A reserved job at the cap keeps its reservation while it waits for a slot.
        #expect(gate.admit(.init(id: UUID(), reserved: true), at: t0)
                == .wait(until: t0.addingTimeInterval(LimitGate.concurrencyRecheck), reserved: true))
        gate.running = 1
        #expect(gate.admit(.init(id: UUID()), at: t0) == .run)
    }

    @Test func aRetryAtBlocksTheLimitAndTheBucketStartsEmptyAfterIt() {
        var gate = gate(rate: 10, burst: 5)
        let until = t0.addingTimeInterval(30)
        gate.block(until: until)
        #expect(gate.admit(.init(id: UUID()), at: t0.addingTimeInterval(1)) == .wait(until: until, reserved: false))
        #expect(gate.admit(.init(id: UUID(), reserved: true), at: t0.addingTimeInterval(29)) == .wait(until: until, reserved: true))
        // At the instant the bucket has refilled nothing: no burst of retries hits the service.
        #expect(gate.admit(.init(id: UUID()), at: until) == .wait(until: until.addingTimeInterval(0.1), reserved: true))
        #expect(gate.admit(.init(id: UUID()), at: until.addingTimeInterval(1)) == .run)
        // An earlier block does not shorten a later one.
        gate.block(until: t0)
        #expect(gate.blockedUntil == until)
    }

    @Test func aBlockLastsAtMostTheLongestBlock() {
        var gate = gate(rate: 10, burst: 5)
        gate.block(until: t0.addingTimeInterval(86_400 * 365), now: t0)
        let cap = t0.addingTimeInterval(LimitGate.longestBlock)
        #expect(gate.blockedUntil == cap)
        #expect(gate.admit(.init(id: UUID()), at: cap.addingTimeInterval(1)) == .run)
        var short = self.gate(rate: 10, burst: 5)
        short.block(until: t0.addingTimeInterval(30), now: t0)
        #expect(short.blockedUntil == t0.addingTimeInterval(30), "a block under the cap is kept as asked")
    }

    @Test func aBudgetDefersUntilEnoughCostHasRefilledAndActualCostsCorrectIt() {
        var gate = gate(budget: 9000, window: 60)  // 150 per second
        for _ in 0..<3 { #expect(gate.admit(.init(id: UUID(), cost: 3000), at: t0) == .run) }
        #expect(gate.admit(.init(id: UUID(), cost: 3000), at: t0) == .wait(until: t0.addingTimeInterval(20), reserved: true))
        gate.correct(estimate: 3000, actual: 1000)
        #expect(gate.budgetLeft == -1000)
        for _ in 0..<3 { gate.correct(estimate: 3000, actual: 0) }
        #expect(gate.budgetLeft == 8000)
        gate.correct(estimate: 3000, actual: 0)
        #expect(gate.budgetLeft == 9000, "never above the budget")
    }

    @Test func aLimitWithOnlyAConcurrencyCapNeverDefersForTime() {
        var gate = gate(concurrency: 1)
        for _ in 0..<1000 {
            #expect(gate.admit(.init(id: UUID()), at: t0) == .run)
            gate.running = 0
        }
    }
}

@Suite("Limit definitions (LimitSpec.parse)", .timeLimit(.minutes(1)))
struct LimitSpecTests {
    @Test func ratesBudgetsAndDefaults() throws {
        let spec = try LimitSpec.parse(name: " provider:openai ", rate: "20/s", burst: nil, concurrency: 8, budget: "90000/min")
        #expect(spec == LimitSpec(name: "provider:openai", rate: 20, burst: 5, concurrency: 8, budget: 90000, budgetWindow: 60))
        // Without a burst: a quarter of a second's starts, at least one; a given burst is kept.
        #expect(LimitSpec(name: "n", rate: 50).burst == 13)
        #expect(LimitSpec(name: "n", rate: 3).burst == 1)
        #expect(LimitSpec(name: "n", rate: 0.5).burst == 1)
        #expect(LimitSpec(name: "n", rate: 20, burst: 1).burst == 1)
        #expect(try LimitSpec.parse(name: "n", rate: "30/min", burst: 5, concurrency: nil, budget: nil).rate == 0.5)
        #expect(try LimitSpec.parse(name: "n", rate: "7200/h", burst: nil, concurrency: nil, budget: nil).rate == 2)
        #expect(try LimitSpec.parse(name: "n", rate: nil, burst: nil, concurrency: 3, budget: nil).rate == nil)
    }

    @Test(arguments: [
        ("20", "invalid --rate '20': expected N/s, N/min or N/h (e.g. 20/s)"),
        ("x/s", "invalid --rate 'x/s': expected N/s, N/min or N/h (e.g. 20/s)"),
        ("20/fortnight", "invalid --rate '20/fortnight': expected N/s, N/min or N/h (e.g. 20/s)"),
        ("-1/s", "invalid --rate '-1/s': expected N/s, N/min or N/h (e.g. 20/s)"),
        ("0/s", "invalid --rate '0/s': expected N/s, N/min or N/h (e.g. 20/s)"),
        ("inf/s", "invalid --rate 'inf/s': expected N/s, N/min or N/h (e.g. 20/s)"),
    ])
    func badRatesAreRefusedWithTheirText(rate: String, message: String) {
        #expect(throws: LimitSpecError.self) { try LimitSpec.parse(name: "n", rate: rate, burst: nil, concurrency: nil, budget: nil) }
        do {
            _ = try LimitSpec.parse(name: "n", rate: rate, burst: nil, concurrency: nil, budget: nil)
        } catch {
            #expect(error.description == message)
        }
    }

    @Test func incompleteOrContradictoryDefinitionsAreRefused() {
        #expect(throws: LimitSpecError.empty("n")) { try LimitSpec.parse(name: "n", rate: nil, burst: nil, concurrency: nil, budget: nil) }
        #expect(throws: LimitSpecError.burstWithoutRate) { try LimitSpec.parse(name: "n", rate: nil, burst: 3, concurrency: 1, budget: nil) }
        #expect(throws: LimitSpecError.self) { try LimitSpec.parse(name: "n", rate: "1/s", burst: 0.5, concurrency: nil, budget: nil) }
        #expect(throws: LimitSpecError.self) { try LimitSpec.parse(name: "n", rate: nil, burst: nil, concurrency: 0, budget: nil) }
        #expect(throws: LimitSpecError.invalidName("  ")) { try LimitSpec.parse(name: "  ", rate: "1/s", burst: nil, concurrency: nil, budget: nil) }
    }

    @Test func aLimitsOwnMaxBlockCapsARetryAfterAndParsesAsADuration() throws {
        let t0 = Date(timeIntervalSince1970: 1_000_000)
        var gate = LimitGate.full(LimitSpec(name: "p", concurrency: 1, maxBlock: 120), at: t0)
        gate.block(until: t0.addingTimeInterval(86_400), now: t0)
        #expect(gate.blockedUntil == t0.addingTimeInterval(120))
        #expect(try LimitSpec.parse(name: "p", rate: nil, burst: nil, concurrency: 1, budget: nil, maxBlock: "2h").maxBlock == 7200)
        #expect(try LimitSpec.parse(name: "p", rate: nil, burst: nil, concurrency: 1, budget: nil, maxBlock: "90s").maxBlock == 90)
        #expect(throws: LimitSpecError.self) {
            _ = try LimitSpec.parse(name: "p", rate: nil, burst: nil, concurrency: 1, budget: nil, maxBlock: "1e308h")
        }
        #expect(throws: LimitSpecError.self) {
            _ = try LimitSpec.parse(name: "p", rate: nil, burst: nil, concurrency: 1, budget: nil, maxBlock: "soon")
        }
    }
}
