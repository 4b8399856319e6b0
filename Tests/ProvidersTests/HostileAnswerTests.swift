import Foundation
import HTTPExchange
import Testing
@testable import Providers

/// Numbers in a provider's answer (Retry-After, token counts) and in a request's parameters are
/// converted without traps: bounded, or dropped when they make no sense.
@Suite(.timeLimit(.minutes(1))) struct HostileAnswerTests {
    @Test func retryAfterIsBoundedAndNegativeIsIgnored() {
        #expect(ProviderHTTPFailure.retryAfter(headers: ["retry-after": "1e30"]) == HTTPExchange.longestRetryAfter)
        #expect(ProviderHTTPFailure.retryAfter(headers: ["retry-after-ms": "1e300"]) == HTTPExchange.longestRetryAfter)
        #expect(ProviderHTTPFailure.retryAfter(headers: ["retry-after": "-5"]) == nil)
        #expect(ProviderHTTPFailure.retryAfter(headers: ["retry-after": "inf"]) == nil)
        #expect(ProviderHTTPFailure.retryAfter(headers: ["retry-after": "nan"]) == nil)
        #expect(ProviderHTTPFailure.retryAfter(headers: ["retry-after": "Fri, 31 Dec 9999 23:59:59 GMT"]) == HTTPExchange.longestRetryAfter)
        #expect(ProviderHTTPFailure.retryAfter(headers: ["retry-after": "7"]) == 7)
    }

    @Test func errorsWithAHugeRetryAfterDescribeWithoutTrapping() {
        #expect(ProviderError.rateLimited(provider: "p", retryAfter: 1e30).description.hasSuffix("retry after 1e+30 s"))
        #expect(ProviderError.serverError(provider: "p", status: 503, retryAfter: .infinity).description.hasSuffix("retry after inf s"))
        #expect(ProviderError.rateLimited(provider: "p", retryAfter: 1.5).description.hasSuffix("retry after 2 s"))
    }

    @Test(arguments: [-5, 1 << 41, Int.max])
    func nonsenseTokenCountsAreNotReported(count: Int) throws {
        let chat = #"{"model":"m","choices":[{"message":{"content":"hi"},"finish_reason":"stop"}],"usage":{"prompt_tokens":\#(count),"completion_tokens":\#(count)}}"#
        let text = try OpenAIWire.decodeChat(Data(chat.utf8), provider: "p")
        #expect(text.inputTokens == nil && text.outputTokens == nil)
        let message = #"{"model":"m","content":[{"type":"text","text":"hi"}],"usage":{"input_tokens":\#(count),"output_tokens":3}}"#
        let answer = try AnthropicWire.decodeMessage(Data(message.utf8), provider: "p")
        #expect(answer.inputTokens == nil && answer.outputTokens == 3)
        let embeddings = #"{"model":"m","data":[{"index":0,"embedding":[0.5]}],"usage":{"prompt_tokens":\#(count)}}"#
        #expect(try OpenAIWire.decodeEmbeddings(Data(embeddings.utf8), expected: 1, provider: "p").inputTokens == nil)
    }

    /// A count that does not fit an Int at all fails decoding (a malformed answer), never traps.
    @Test func aTokenCountBeyondIntIsAMalformedAnswer() {
        let chat = #"{"model":"m","choices":[{"message":{"content":"hi"}}],"usage":{"prompt_tokens":1e308}}"#
        #expect(throws: ProviderError.self) { try OpenAIWire.decodeChat(Data(chat.utf8), provider: "p") }
    }

    @Test(arguments: [0, -1, 1_000_001, Int.max])
    func tokenCapsOutOfRangeAreInvalid(maxTokens: Int) {
        #expect(throws: ProviderError.self) { try TextGenerationRequest(prompt: "hi", maxTokens: maxTokens).validate() }
    }

    @Test func aTemperatureOutOfRangeIsInvalid() throws {
        #expect(throws: ProviderError.self) { try TextGenerationRequest(prompt: "hi", temperature: 1e308).validate() }
        #expect(throws: ProviderError.self) { try TextGenerationRequest(prompt: "hi", temperature: .nan).validate() }
        try TextGenerationRequest(prompt: "hi", maxTokens: 1_000_000, temperature: 2).validate()
    }

    @Test(arguments: ["99999999999999999999x1", "0x0", "-5x5", "8193x8193", "1e308x1", "x"])
    func imageSizesOutOfRangeAreInvalid(size: String) {
        #expect(throws: ProviderError.self) { try ImageRequest(prompt: "a cat", size: size).validate() }
    }
}
