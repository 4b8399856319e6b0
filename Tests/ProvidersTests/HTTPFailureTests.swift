import Foundation
import RepartoConfiguration
import Testing
@testable import Providers

/// How status codes, error bodies and Retry-After become ``ProviderError``s, no server.
@Suite(.timeLimit(.minutes(1))) struct HTTPFailureTests {
    func error(_ status: Int, _ body: String, headers: [String: String] = [:], secret: Secret? = nil) -> ProviderError {
        ProviderHTTPFailure.error(provider: "p", status: status, headers: headers, body: Data(body.utf8), secret: secret,
                                  now: Date(timeIntervalSince1970: 1_764_086_400))  // Tue, 25 Nov 2025 16:00:00 GMT
    }

    @Test func authFailuresArePermanent() {
        let e = error(401, #"{"error":{"message":"Incorrect API key","type":"invalid_request_error","param":null,"code":"invalid_api_key"}}"#)
        #expect(e == .unauthorized(provider: "p", status: 401, message: "Incorrect API key"))
        #expect(!e.isRetryable)
        #expect(e.isAuthenticationFailure)
        #expect(error(403, #"{"type":"error","error":{"type":"permission_error","message":"no"}}"#).isAuthenticationFailure)
    }

    @Test func rateLimitsCarryRetryAfterInEachForm() {
        #expect(error(429, "{}", headers: ["retry-after": "7"]) == .rateLimited(provider: "p", retryAfter: 7))
        #expect(error(429, "{}", headers: ["retry-after-ms": "1500", "retry-after": "2"]) == .rateLimited(provider: "p", retryAfter: 1.5))
        #expect(error(429, "{}", headers: ["retry-after": "Tue, 25 Nov 2025 16:00:30 GMT"]).retryAfter == 30)
        #expect(error(429, "{}", headers: ["retry-after": "soon"]) == .rateLimited(provider: "p", retryAfter: nil))
        #expect(error(429, "{}").isRetryable)
    }

    @Test func anExhaustedQuotaIsNotARateLimit() {
        let openAI = error(429, #"{"error":{"message":"You exceeded your current quota","type":"insufficient_quota","param":null,"code":"insufficient_quota"}}"#)
        #expect(openAI == .quotaExhausted(provider: "p", message: "You exceeded your current quota"))
        #expect(!openAI.isRetryable)
        let anthropic = error(429, #"{"type":"error","error":{"type":"rate_limit_error","message":"spend limit","details":{"error_code":"enforced_spend_limit_reached"}}}"#)
        #expect(!anthropic.isRetryable)
    }

    @Test func contentPolicyIsRefusedWithTheReasonKept() {
        let e = error(400, #"{"error":{"message":"Your request was rejected as a result of our safety system.","type":"invalid_request_error","param":null,"code":"content_policy_violation"}}"#)
        #expect(e == .refused(provider: "p", reason: "Your request was rejected as a result of our safety system."))
        #expect(!e.isRetryable)
        #expect(error(400, #"{"error":{"message":"bad model","type":"invalid_request_error","code":"model_not_found"}}"#)
                == .rejected(provider: "p", status: 400, message: "bad model"))
    }

    @Test func serverErrorsAndAnthropicOverloadAreRetryable() {
        #expect(error(500, "oops") == .serverError(provider: "p", status: 500, retryAfter: nil))
        let overloaded = error(529, #"{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}"#, headers: ["retry-after": "3"])
        #expect(overloaded == .serverError(provider: "p", status: 529, retryAfter: 3))
        #expect(overloaded.isRetryable)
        #expect(error(408, "").isRetryable)
    }

    @Test func theKeyNeverAppearsInAnErrorMessage() {
        let e = error(401, #"{"error":{"message":"Incorrect API key provided: sk-live-123456"}}"#, secret: Secret("sk-live-123456"))
        #expect(!e.description.contains("sk-live-123456"))
        #expect(e.description.contains("<redacted>"))
    }
}
