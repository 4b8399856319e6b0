import Foundation

/// Errors of defining and managing schedules.
public enum ScheduleError: Error, Sendable, Equatable, CustomStringConvertible {
    case cron(CronParseError)
    case interval(ScheduleIntervalError)
    case unknownTimeZone(String)
    /// Names are 1–100 characters of letters, digits and `. _ - : /`.
    case invalidName(String)
    case invalidKind(String)
    case invalidMaxAttempts(Int)
    /// A cron expression with no future time (`0 0 30 2 *`).
    case neverFires(String)
    case notFound(String)
    /// Neither or both of a cron expression and an interval, or a time zone for an interval.
    case cadenceChoice(String)
    /// A stored row that no longer parses (edited by hand).
    case invalidStored(name: String, reason: String)

    public var description: String {
        switch self {
        case .cron(let error): return error.description
        case .interval(let error): return error.description
        case .unknownTimeZone(let name): return "unknown time zone '\(name)' (use an IANA name such as Europe/Berlin or UTC)"
        case .invalidName(let name):
            return "bad schedule name '\(name)' (1 to 100 characters: letters, digits and . _ - : /)"
        case .invalidKind(let kind): return "bad job kind '\(kind)'"
        case .invalidMaxAttempts(let count): return "max attempts must be at least 1, not \(count)"
        case .neverFires(let expression): return "cron expression '\(expression)' never fires"
        case .notFound(let name): return "no schedule named '\(name)'"
        case .invalidStored(let name, let reason): return "schedule '\(name)' is stored with a bad definition: \(reason)"
        case .cadenceChoice(let reason): return reason
        }
    }
}

/// When a schedule fires: a cron expression in a time zone, or an interval.
public enum ScheduleCadence: Sendable, Hashable, CustomStringConvertible {
    case cron(CronExpression, timeZone: TimeZone)
    case every(ScheduleInterval)

    /// Exactly one of a cron expression (with its time zone, UTC by default) or an interval, as
    /// `reparto schedule add` takes them.
    /// - Throws: ``ScheduleError/cadenceChoice(_:)`` for neither, both, or a zone with an interval.
    public init(cron: String?, every: String?, timeZone: String?) throws(ScheduleError) {
        switch (cron, every) {
        case (let cron?, nil): self = try .cron(cron, timeZone: timeZone ?? "UTC")
        case (nil, let every?):
            if timeZone != nil { throw .cadenceChoice("--timezone applies to --cron, not to --every") }
            self = try .every(every)
        default: throw .cadenceChoice("give either --cron or --every")
        }
    }

    /// A cron expression in the time zone named `timeZone` (an IANA name; UTC by default).
    public static func cron(_ expression: String, timeZone: String = "UTC") throws(ScheduleError) -> ScheduleCadence {
        let cron: CronExpression
        do { cron = try CronExpression(parsing: expression) } catch { throw .cron(error) }
        return .cron(cron, timeZone: try zone(named: timeZone))
    }

    /// An interval such as `30s`, `5m`, `1h30m`.
    public static func every(_ text: String) throws(ScheduleError) -> ScheduleCadence {
        do { return .every(try ScheduleInterval(parsing: text)) } catch { throw .interval(error) }
    }

    static func zone(named name: String) throws(ScheduleError) -> TimeZone {
        // Foundation also accepts abbreviations and offsets ("GMT+2"); only identifiers are stored.
        guard !name.isEmpty, let zone = TimeZone(identifier: name) else { throw .unknownTimeZone(name) }
        return zone
    }

    /// The first tick strictly after `date` (nil: a cron expression that never fires).
    public func nextTick(after date: Date) -> Date? {
        switch self {
        case .cron(let expression, let zone): return expression.next(after: date, in: zone)
        case .every(let interval): return interval.next(after: date)
        }
    }

    /// How many ticks fall in `(tick, now]`: the ticks a coordinator missed while none was
    /// running. Counting a cron expression's ticks stops at `limit` (`atLeast` is then true).
    public func ticks(after tick: Date, through now: Date, limit: Int = 10_000) -> (count: Int, atLeast: Bool) {
        guard now > tick else { return (0, false) }
        switch self {
        case .every(let interval):
            let period = Double(interval.seconds)
            let count = Int((now.timeIntervalSince1970 / period).rounded(.down) - (tick.timeIntervalSince1970 / period).rounded(.down))
            return (max(0, count), false)
        case .cron:
            var count = 0
            var cursor = tick
            while let next = nextTick(after: cursor), next <= now {
                count += 1
                if count >= limit { return (count, true) }
                cursor = next
            }
            return (count, false)
        }
    }

    /// `cron */5 * * * * (Europe/Berlin)` or `every 30s`.
    public var description: String {
        switch self {
        case .cron(let expression, let zone): return "cron \(expression.source) (\(zone.identifier))"
        case .every(let interval): return "every \(interval)"
        }
    }
}

/// A job enqueued on a cadence: what `reparto schedule add` stores.
public struct ScheduleDefinition: Sendable, Equatable {
    /// Unique; adding a schedule with an existing name replaces its definition.
    public var name: String
    public var cadence: ScheduleCadence
    public var kind: String
    public var queue: String
    /// The job's parameters, JSON.
    public var parameters: Data
    public var priority: JobPriority
    public var maxAttempts: Int
    /// Seconds one attempt may run; nil takes the kind's default.
    public var timeout: Double?

    public init(name: String, cadence: ScheduleCadence, kind: String, queue: String = "default",
                parameters: Data = Data("{}".utf8), priority: JobPriority = .normal, maxAttempts: Int = 5, timeout: Double? = nil) {
        self.name = name
        self.cadence = cadence
        self.kind = kind
        self.queue = queue
        self.parameters = parameters
        self.priority = priority
        self.maxAttempts = maxAttempts
        self.timeout = timeout
    }

    /// A schedule of a typed job kind.
    public init<P: JobParameters>(name: String, cadence: ScheduleCadence, _ parameters: P, priority: JobPriority = .normal,
                                  maxAttempts: Int = 5, timeout: Double? = nil) throws {
        self.init(name: name, cadence: cadence, kind: P.kind, queue: P.queue, parameters: try JSONEncoder.jobs.encode(parameters),
                  priority: priority, maxAttempts: maxAttempts, timeout: timeout)
    }

    static let nameCharacters = CharacterSet(charactersIn: "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-:/")

    func validate() throws(ScheduleError) {
        guard (1...100).contains(name.count), name.unicodeScalars.allSatisfy(Self.nameCharacters.contains) else {
            throw .invalidName(name)
        }
        guard !kind.isEmpty else { throw .invalidKind(kind) }
        guard maxAttempts >= 1 else { throw .invalidMaxAttempts(maxAttempts) }
    }

    /// The idempotency key of the job of one tick: a tick is enqueued at most once, whoever fires it.
    static func idempotencyKey(name: String, tick: Date) -> String {
        "schedule:\(name):\(CivilTime.iso8601(tick))"
    }
}

/// A stored schedule and its state.
public struct ScheduleRecord: Sendable, Equatable {
    public var definition: ScheduleDefinition
    public var paused: Bool
    /// The next tick (nil: a cron expression that never fires again).
    public var nextRunAt: Date?
    /// When its last job was enqueued.
    public var lastRunAt: Date?
    public var lastJobID: UUID?
    /// Ticks skipped in all because no coordinator ran at the time (each outage runs once on recovery).
    public var missedTicks: Int
    public var createdAt: Date
    public var updatedAt: Date

    public var name: String { definition.name }
}

/// One tick a coordinator fired.
public struct FiredTick: Sendable, Equatable {
    public var name: String
    /// The tick instant (also in the job's idempotency key).
    public var tick: Date
    public var jobID: UUID
    /// Later ticks that were already due, skipped: the schedule ran once for all of them.
    public var missed: Int
    /// `missed` is a lower bound (counting stopped).
    public var missedAtLeast: Bool
    public var next: Date?
}
