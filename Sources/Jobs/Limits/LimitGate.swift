import Foundation

/// One limit's live state and its admission rule, as a pure value: the claim locks the limit's
/// row, loads this, admits the delivered jobs in order, and writes it back in the same transaction.
///
/// - **Rate** is a token bucket of size `burst` refilled at `rate` per second. A job that finds no
///   whole token takes one anyway — the level goes negative — and waits until the level is back at
///   zero: a reservation. Waiting jobs therefore come back spaced `1/rate` apart, in order, and a
///   returning reserved job runs without taking a second token. Over any interval of T seconds at
///   most `burst + rate × T` jobs start.
/// - **Budget** is the same bucket in cost units (size `budget`, refilled at `budget / window`);
///   a job takes its estimated cost, corrected by its actual cost when it finishes.
/// - **Concurrency** is the number of the limit's jobs running on live workers (counted by the
///   caller); at the cap a job waits without a reservation and is woken when a slot frees.
/// - **Blocked**: a provider's "retry after T" blocks the limit until T; the bucket does not refill
///   before T and starts from at most zero then, so the retries do not arrive together.
public struct LimitGate: Sendable, Equatable {
    /// When a job waiting for a concurrency slot looks again if no slot frees before.
    public static let concurrencyRecheck: Double = 1

    public var spec: LimitSpec
    public var tokens: Double
    public var budgetLeft: Double
    /// The instant `tokens` and `budgetLeft` are as of (after a block: in the future).
    public var refilledAt: Date
    public var blockedUntil: Date?
    /// The limit's jobs running now (on live workers).
    public var running: Int

    public init(spec: LimitSpec, tokens: Double, budgetLeft: Double, refilledAt: Date, blockedUntil: Date? = nil,
                running: Int = 0) {
        self.spec = spec
        self.tokens = tokens
        self.budgetLeft = budgetLeft
        self.refilledAt = refilledAt
        self.blockedUntil = blockedUntil
        self.running = running
    }

    /// A new limit's state: full buckets.
    public static func full(_ spec: LimitSpec, at now: Date) -> LimitGate {
        LimitGate(spec: spec, tokens: spec.burst ?? 0, budgetLeft: spec.budget ?? 0, refilledAt: now)
    }

    /// One job asking to start.
    public struct Request: Sendable, Equatable {
        public var id: UUID
        /// Its estimated cost against the budget.
        public var cost: Double
        /// It already holds a rate/budget reservation (it was deferred for one).
        public var reserved: Bool

        public init(id: UUID, cost: Double = 1, reserved: Bool = false) {
            self.id = id
            self.cost = cost
            self.reserved = reserved
        }
    }

    /// The answer for one job.
    public enum Verdict: Sendable, Equatable {
        /// Start it now.
        case run
        /// Put it off until the instant; `reserved` when it holds a token taken for that instant.
        case wait(until: Date, reserved: Bool)
    }

    /// Brings the buckets up to `now` (never backwards: a later admission may already have moved them).
    public mutating func refill(at now: Date) {
        let elapsed = now.timeIntervalSince(refilledAt)
        guard elapsed > 0 else { return }
        if let rate = spec.rate, let burst = spec.burst { tokens = min(burst, tokens + elapsed * rate) }
        if let budget = spec.budget, let window = spec.budgetWindow { budgetLeft = min(budget, budgetLeft + elapsed * budget / window) }
        refilledAt = now
    }

    /// Admits one job at `now` (call in the order the jobs should start).
    public mutating func admit(_ request: Request, at now: Date) -> Verdict {
        refill(at: now)
        if let blockedUntil, blockedUntil > now { return .wait(until: blockedUntil, reserved: request.reserved) }
        if let cap = spec.concurrency, running >= cap {
            return .wait(until: now.addingTimeInterval(Self.concurrencyRecheck), reserved: request.reserved)
        }
        if request.reserved {
            running += 1
            return .run
        }
        var wait: Double = 0
        if let rate = spec.rate {
            tokens -= 1
            if tokens < 0 { wait = max(wait, -tokens / rate) }
        }
        if let budget = spec.budget, let window = spec.budgetWindow {
            budgetLeft -= max(0, request.cost)
            if budgetLeft < 0 { wait = max(wait, -budgetLeft / (budget / window)) }
        }
        guard wait > 0 else {
            running += 1
            return .run
        }
        // The reservation's instant counts from the buckets' own time (after a block, the future).
        return .wait(until: max(now, refilledAt).addingTimeInterval(wait), reserved: true)
    }

    /// A handler learned that the limit's service refuses work until `instant` (a 429's Retry-After).
    public mutating func block(until instant: Date) {
        blockedUntil = max(blockedUntil ?? instant, instant)
        if spec.rate != nil { tokens = min(tokens, 0) }
        refilledAt = max(refilledAt, instant)
    }

    /// A finished job's actual cost replaces its estimate in the budget.
    public mutating func correct(estimate: Double, actual: Double) {
        guard let budget = spec.budget else { return }
        budgetLeft = min(budget, budgetLeft + estimate - actual)
    }
}
