import Foundation

/// Prices of generation, from configuration (`REPARTO_GENERATION_PRICES`), to turn the usage
/// ledger into money. One entry per provider and model, separated by `;`:
///
/// ```
/// openai/gpt-4o-mini=in:0.15,out:0.60; anthropic/claude-sonnet-4-5=in:3,out:15; openai/gpt-image-1=image:0.04
/// ```
///
/// `in` and `out` are per million input and output tokens, `chars` per million characters,
/// `image` per image, in one currency of the operator's choice. Pure: unit-tested.
public struct UsagePrices: Sendable, Equatable {
    /// One model's prices.
    public struct Price: Sendable, Equatable {
        public var perMillionInputTokens: Double = 0
        public var perMillionOutputTokens: Double = 0
        public var perMillionCharacters: Double = 0
        public var perImage: Double = 0
    }

    /// What the configuration says that is not a price list.
    public struct ParseError: Error, Sendable, Equatable, CustomStringConvertible {
        public var entry: String
        public var description: String {
            "REPARTO_GENERATION_PRICES: cannot read '\(entry)' (expected PROVIDER/MODEL=in:N,out:N,chars:N,image:N)"
        }
    }

    /// The configuration variable.
    public static let variable = "REPARTO_GENERATION_PRICES"

    /// By `provider/model`.
    public var prices: [String: Price]

    public init(prices: [String: Price] = [:]) {
        self.prices = prices
    }

    /// Parses the variable's value.
    public init(parsing text: String) throws(ParseError) {
        var prices: [String: Price] = [:]
        for entry in text.split(separator: ";").map({ $0.trimmingCharacters(in: .whitespaces) }) where !entry.isEmpty {
            let sides = entry.split(separator: "=", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces) }
            guard sides.count == 2, sides[0].contains("/"), !sides[1].isEmpty else { throw ParseError(entry: entry) }
            var price = Price()
            for part in sides[1].split(separator: ",") {
                let pair = part.split(separator: ":", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces) }
                guard pair.count == 2, let value = Double(pair[1]), value >= 0, value.isFinite else { throw ParseError(entry: entry) }
                switch pair[0] {
                case "in": price.perMillionInputTokens = value
                case "out": price.perMillionOutputTokens = value
                case "chars": price.perMillionCharacters = value
                case "image": price.perImage = value
                default: throw ParseError(entry: entry)
                }
            }
            prices[sides[0]] = price
        }
        self.prices = prices
    }

    /// The cost of a summary line; nil when its model has no price.
    public func cost(of line: UsageSummary) -> Double? {
        guard let price = prices["\(line.provider)/\(line.model)"] else { return nil }
        return Double(line.inputTokens) * price.perMillionInputTokens / 1e6
            + Double(line.outputTokens) * price.perMillionOutputTokens / 1e6
            + Double(line.characters) * price.perMillionCharacters / 1e6
            + Double(line.images) * price.perImage
    }
}
