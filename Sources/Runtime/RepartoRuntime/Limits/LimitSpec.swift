import Foundation

/// A named cluster-wide limit: a rate (token bucket with a burst), a concurrency cap and/or a
/// cost budget per window. Stored in PostgreSQL; every worker process obeys it as one client.
public struct LimitSpec: Sendable, Equatable, Codable {
    /// The limit's name, e.g. `provider:openai`; jobs name it (``JobOptions/limit``) or their kind does.
    public var name: String
    /// Starts per second, if the limit has a rate.
    public var rate: Double?
    /// How many starts may happen at once after a quiet period (the bucket's size; with a rate).
    /// Without one given: ``defaultBurst(rate:)``.
    public var burst: Double?
    /// Jobs under the limit running at once, if capped.
    public var concurrency: Int?
    /// Cost units (e.g. LLM tokens) per ``budgetWindow``, if the limit has a budget.
    public var budget: Double?
    /// Seconds over which ``budget`` refills.
    public var budgetWindow: Double?
    /// The longest a provider's "retry after" may block the limit, in seconds (nil:
    /// ``LimitGate/longestBlock``, an hour): a service asking for days, or a misread date, must not
    /// stall everything under the limit for that long.
    public var maxBlock: Double?

    public init(name: String, rate: Double? = nil, burst: Double? = nil, concurrency: Int? = nil,
                budget: Double? = nil, budgetWindow: Double? = nil, maxBlock: Double? = nil) {
        self.name = name
        self.rate = rate
        self.burst = rate.map { max(1, burst ?? Self.defaultBurst(rate: $0)) }
        self.concurrency = concurrency
        self.budget = budget
        self.budgetWindow = budget == nil ? nil : budgetWindow
        self.maxBlock = maxBlock
    }

    /// The cap on a block in seconds: ``maxBlock``, else ``LimitGate/longestBlock``.
    public var blockCap: Double { maxBlock ?? LimitGate.longestBlock }

    /// A quarter of a second's starts, at least one: the slack a limit needs to reach its rate.
    /// Jobs come back from a deferral a few milliseconds late (the relay, the claim); with a
    /// burst of 1 each such delay was lost for good, and a 20/s limit ran at about 13/s. The
    /// limit is still never exceeded by more than its burst.
    public static func defaultBurst(rate: Double) -> Double {
        max(1, (rate * 0.25).rounded(.up))
    }

    /// A limit from the CLI's texts: `--rate 20/s`, `--burst N`, `--concurrency N`, `--budget 90000/min`,
    /// `--max-block 2h` (a duration: `90s`, `30m`, `2h`, `1d`).
    public static func parse(name: String, rate: String?, burst: Double?, concurrency: Int?,
                             budget: String?, maxBlock: String? = nil) throws(LimitSpecError) -> LimitSpec {
        let trimmed = name.trimmingCharacters(in: .whitespaces)
        guard !trimmed.isEmpty, trimmed.count <= 200 else { throw .invalidName(name) }
        let parsedRate: PerWindow? = try rate.map { (text) throws(LimitSpecError) in try PerWindow.parse(text, option: "--rate") }
        let parsedBudget: PerWindow? = try budget.map { (text) throws(LimitSpecError) in try PerWindow.parse(text, option: "--budget") }
        if let burst, !(burst >= 1 && burst.isFinite) { throw .invalid(option: "--burst", value: "\(burst)", expected: "a number ≥ 1") }
        if burst != nil && parsedRate == nil { throw .burstWithoutRate }
        if let concurrency, concurrency < 1 { throw .invalid(option: "--concurrency", value: "\(concurrency)", expected: "an integer ≥ 1") }
        guard parsedRate != nil || concurrency != nil || parsedBudget != nil else { throw .empty(name) }
        let parsedMaxBlock = try maxBlock.map { (text) throws(LimitSpecError) -> Double in
            guard let seconds = Self.duration(text), seconds >= 1, seconds <= 30 * 86_400 else {
                throw .invalid(option: "--max-block", value: text, expected: "a duration from 1s to 30d (e.g. 90s, 30m, 2h)")
            }
            return seconds
        }
        return LimitSpec(name: trimmed, rate: parsedRate.map { $0.amount / $0.seconds }, burst: burst,
                         concurrency: concurrency, budget: parsedBudget?.amount, budgetWindow: parsedBudget?.seconds,
                         maxBlock: parsedMaxBlock)
    }

    /// `90s`, `30m`, `2h`, `1d` (a bare number is seconds) as seconds; nil when it is none of these.
    static func duration(_ text: String) -> Double? {
        let trimmed = text.trimmingCharacters(in: .whitespaces).lowercased()
        let units: [(String, Double)] = [("s", 1), ("m", 60), ("h", 3600), ("d", 86_400)]
        for (suffix, seconds) in units where trimmed.hasSuffix(suffix) {
            guard let amount = Double(trimmed.dropLast(suffix.count)), amount.isFinite, amount >= 0 else { return nil }
            return amount * seconds
        }
        guard let amount = Double(trimmed), amount.isFinite, amount >= 0 else { return nil }
        return amount
    }

    /// `20/s`, `90000/min`: an amount per window.
    public struct PerWindow: Sendable, Equatable {
        public var amount: Double
        public var seconds: Double

        static func parse(_ text: String, option: String) throws(LimitSpecError) -> PerWindow {
            let expected = "N/s, N/min or N/h (e.g. 20/s)"
            let parts = text.lowercased().split(separator: "/", omittingEmptySubsequences: false)
            guard parts.count == 2, let amount = Double(parts[0].trimmingCharacters(in: .whitespaces)),
                  amount > 0, amount.isFinite else {
                throw .invalid(option: option, value: text, expected: expected)
            }
            let seconds: Double
            switch parts[1].trimmingCharacters(in: .whitespaces) {
            case "s", "sec", "second": seconds = 1
            case "m", "min", "minute": seconds = 60
            case "h", "hour": seconds = 3600
            case "d", "day": seconds = 86400
            default: throw .invalid(option: option, value: text, expected: expected)
            }
            return PerWindow(amount: amount, seconds: seconds)
        }
    }
}

/// Why a limit definition was refused.
public enum LimitSpecError: Error, Sendable, Equatable, CustomStringConvertible {
    case invalidName(String)
    case invalid(option: String, value: String, expected: String)
    case burstWithoutRate
    case empty(String)

    public var description: String {
        switch self {
        case .invalidName(let name): return "invalid limit name '\(name)': 1 to 200 characters"
        case .invalid(let option, let value, let expected): return "invalid \(option) '\(value)': expected \(expected)"
        case .burstWithoutRate: return "--burst needs --rate"
        case .empty(let name): return "limit '\(name)' needs at least one of --rate, --concurrency, --budget"
        }
    }
}
