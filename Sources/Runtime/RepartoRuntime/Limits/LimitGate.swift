import Foundation

/// One limit's live state and its admission rule, as a pure value: the claim locks the limit's
/// row, loads this, admits the delivered jobs in order, and writes it back in the same transaction.
///
/// - **Rate** is two token buckets of size `burst` refilled at `rate` per second. The *schedule*
///   (`tokens`) spaces waiting jobs: a job that finds no whole token takes one anyway — the level
///   goes negative — and waits until the level is back at zero, a reservation; waiting jobs
///   therefore come back spaced `1/rate` apart, in order. The *starts* bucket (`pacedUntil`)
///   counts only jobs that actually start, at the instant they start, and every start needs a
///   whole token of it — so jobs that come back late and together (a slow relay, a busy
///   database) cannot start together: the excess is deferred again, to the back of the schedule.
///   Over any interval of T seconds at most `burst + rate × T` jobs start, whenever they arrive.
/// - **Budget** is the same bucket in cost units (size `budget`, refilled at `budget / window`);
///   a job takes its estimated cost, corrected by its actual cost when it finishes.
/// - **Concurrency** is the number of the limit's jobs running on live workers (counted by the
///   caller); at the cap a job waits without a reservation and is woken when a slot frees.
/// - **Blocked**: a provider's "retry after T" blocks the limit until T; the bucket does not refill
///   before T and starts from at most zero then, so the retries do not arrive together.
public struct LimitGate: Sendable, Equatable {
    /// When a job waiting for a concurrency slot looks again if no slot frees before.
    public static let concurrencyRecheck: Double = 1
    /// The longest a provider's "retry after" blocks a limit, in seconds (one hour): a service
    /// asking for days, or a misread date, would otherwise stall everything under the limit.
    /// `reparto limit set` lifts a block at once.
    public static let longestBlock: Double = 3600

    public var spec: LimitSpec
    public var tokens: Double
    public var budgetLeft: Double
    /// The instant `tokens` and `budgetLeft` are as of (after a block: in the future).
    public var refilledAt: Date
    public var blockedUntil: Date?
    /// The instant the starts bucket is full again (nil: full). Its level at `t` is
    /// `burst − rate × max(0, pacedUntil − t)`; each start adds `1/rate`.
    public var pacedUntil: Date?
    /// The limit's jobs running now (on live workers).
    public var running: Int

    public init(spec: LimitSpec, tokens: Double, budgetLeft: Double, refilledAt: Date, blockedUntil: Date? = nil,
                pacedUntil: Date? = nil, running: Int = 0) {
        self.spec = spec
        self.tokens = tokens
        self.budgetLeft = budgetLeft
        self.refilledAt = refilledAt
        self.blockedUntil = blockedUntil
        self.pacedUntil = pacedUntil
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
        let paceWait = startsWait(at: now)
        if request.reserved {
            guard paceWait > 0 else {
                start(at: now)
                return .run
            }
            // Back a moment after the slot it reserved (a relay and a broker lie between), it
            // finds the starts bucket empty: it keeps its place and waits for the bucket, without
            // a new token. (Taking one sent every late returner to the back of the schedule, and
            // the pace drifted well below the rate: 20 reads at 5/s were admitted at 3/s.)
            return .wait(until: now.addingTimeInterval(paceWait), reserved: true)
        }
        // A new job takes its tokens (and its budget); it waits when the schedule or the starts
        // bucket says so.
        var scheduleWait: Double = 0
        if let rate = spec.rate {
            tokens -= 1
            if tokens < 0 { scheduleWait = -tokens / rate }
        }
        if let budget = spec.budget, let window = spec.budgetWindow {
            budgetLeft -= max(0, request.cost)
            if budgetLeft < 0 { scheduleWait = max(scheduleWait, -budgetLeft / (budget / window)) }
        }
        guard scheduleWait > 0 || paceWait > 0 else {
            start(at: now)
            return .run
        }
        // The reservation's instant counts from the buckets' own time (after a block, the future).
        let until = max(max(now, refilledAt).addingTimeInterval(scheduleWait), now.addingTimeInterval(paceWait))
        return .wait(until: until, reserved: true)
    }

    /// Seconds until the starts bucket holds a whole token (0: it holds one now).
    func startsWait(at now: Date) -> Double {
        guard let rate = spec.rate, let burst = spec.burst, let pacedUntil else { return 0 }
        let wait = pacedUntil.timeIntervalSince(now) - (burst - 1) / rate
        return wait > 1e-6 ? wait : 0  // a microsecond: what timestamps and Dates resolve
    }

    private mutating func start(at now: Date) {
        running += 1
        if let rate = spec.rate { pacedUntil = max(pacedUntil ?? now, now).addingTimeInterval(1 / rate) }
    }

    /// A handler learned that the limit's service refuses work until `instant` (a 429's Retry-After),
    /// which is cut to the limit's cap (``LimitSpec/blockCap``, default ``longestBlock``) after `now` when given.
    public mutating func block(until requested: Date, now: Date? = nil) {
        let instant = now.map { min(requested, $0.addingTimeInterval(spec.blockCap)) } ?? requested
        blockedUntil = max(blockedUntil ?? instant, instant)
        if let rate = spec.rate, let burst = spec.burst {
            tokens = min(tokens, 0)
            // The starts bucket, too, is empty at the instant.
            pacedUntil = max(pacedUntil ?? instant, instant.addingTimeInterval(burst / rate))
        }
        refilledAt = max(refilledAt, instant)
    }

    /// A finished job's actual cost replaces its estimate in the budget.
    public mutating func correct(estimate: Double, actual: Double) {
        guard let budget = spec.budget else { return }
        budgetLeft = min(budget, budgetLeft + estimate - actual)
    }
}
