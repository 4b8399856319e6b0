import Testing
@testable import Generation

/// The price list of `REPARTO_GENERATION_PRICES` and the cost of a usage line.
@Suite(.timeLimit(.minutes(1))) struct UsagePricesTests {
    static func line(provider: String = "openai", model: String = "gpt-4o-mini", input: Int64 = 0, output: Int64 = 0,
                     characters: Int64 = 0, images: Int64 = 0) -> UsageSummary {
        UsageSummary(provider: provider, model: model, capability: "text", calls: 1, reused: 0, inputTokens: input,
                     outputTokens: output, characters: characters, images: images, audioSeconds: 0)
    }

    @Test func pricesPerMillionTokensAndPerImage() throws {
        let prices = try UsagePrices(parsing: "openai/gpt-4o-mini=in:0.15,out:0.60; openai/gpt-image-1=image:0.04 ;")
        #expect(abs(try #require(prices.cost(of: Self.line(input: 2_000_000, output: 1_000_000))) - 0.9) < 1e-12)
        #expect(abs(try #require(prices.cost(of: Self.line(model: "gpt-image-1", images: 3))) - 0.12) < 1e-12)
        #expect(prices.cost(of: Self.line(model: "unpriced", input: 5)) == nil)
        #expect(try UsagePrices(parsing: "").prices.isEmpty)
    }

    @Test func aBadEntryIsNamed() {
        #expect(throws: UsagePrices.ParseError(entry: "openai=in:1")) { try UsagePrices(parsing: "openai=in:1") }
        #expect(throws: UsagePrices.ParseError(entry: "a/b=in:-1")) { try UsagePrices(parsing: "a/b=in:-1") }
        #expect(throws: UsagePrices.ParseError(entry: "a/b=fast:1")) { try UsagePrices(parsing: "a/b=fast:1") }
    }
}
