import Foundation
import Hummingbird
import RepartoConfiguration

/// Who may read the dashboard: anyone who can reach a loopback address, or, bound anywhere else,
/// only requests carrying `Authorization: Bearer <REPARTO_DASHBOARD_TOKEN>`.
public enum DashboardAccess {
    /// The token's variable; `REPARTO_DASHBOARD_TOKEN_FILE` names a file holding it (the secret rule).
    public static let tokenVariable = "REPARTO_DASHBOARD_TOKEN"
    /// The file form of ``tokenVariable`` (Docker and Kubernetes secrets).
    public static let tokenFileVariable = "REPARTO_DASHBOARD_TOKEN_FILE"

    /// The token requests must carry when the dashboard binds `host`: `token` (required unless
    /// `host` is a loopback address; when given, always required).
    /// - Throws: ``DashboardAccessError/tokenRequired(host:)`` when `host` is not loopback and there is no token.
    public static func requiredToken(host: String, token: Secret?) throws(DashboardAccessError) -> Secret? {
        if let token { return token }
        guard isLoopback(host) else { throw .tokenRequired(host: host) }
        return nil
    }

    /// `localhost`, 127.0.0.0/8 or ::1 (with or without brackets).
    public static func isLoopback(_ host: String) -> Bool {
        var name = host.trimmingCharacters(in: .whitespaces).lowercased()
        if name.hasPrefix("["), name.hasSuffix("]") { name = String(name.dropFirst().dropLast()) }
        if name == "localhost" { return true }
        var v4 = in_addr()
        if inet_pton(AF_INET, name, &v4) == 1 { return UInt32(bigEndian: v4.s_addr) >> 24 == 127 }
        var v6 = in6_addr()
        if inet_pton(AF_INET6, name, &v6) == 1 {
            return withUnsafeBytes(of: &v6) { $0.elementsEqual([UInt8](repeating: 0, count: 15) + [1]) }
        }
        return false
    }

    /// Whether an `Authorization` header value carries `token`, in time that depends only on the
    /// token's length (never on how much of it a guess got right).
    public static func authorizes(_ header: String?, token: Secret) -> Bool {
        let expected = Array(("Bearer " + token.value).utf8)
        let given = Array((header ?? "").utf8)
        var difference: UInt8 = given.count == expected.count ? 0 : 1
        for index in expected.indices {
            difference |= (index < given.count ? given[index] : 0) ^ expected[index]
        }
        return difference == 0
    }
}

/// Why the dashboard will not start, in one line.
public enum DashboardAccessError: Error, Sendable, Equatable, CustomStringConvertible {
    /// Bound beyond loopback without a token: anyone who reaches the port would read the cluster.
    case tokenRequired(host: String)

    public var description: String {
        switch self {
        case .tokenRequired(let host):
            "the dashboard binds \(host), not a loopback address: set \(DashboardAccess.tokenVariable) "
                + "(or \(DashboardAccess.tokenFileVariable)) so every request must carry it, or bind 127.0.0.1"
        }
    }
}

/// Answers 401 to every request without `Authorization: Bearer <token>`; the token is never logged.
struct BearerTokenMiddleware<Context: RequestContext>: RouterMiddleware {
    let token: Secret

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        guard DashboardAccess.authorizes(request.headers[.authorization], token: token) else {
            var reply = HTTPReply.json(["error": "unauthorized: send Authorization: Bearer <\(DashboardAccess.tokenVariable)>"],
                                       status: .unauthorized)
            reply.headers[.wwwAuthenticate] = "Bearer realm=\"reparto\""
            return reply
        }
        return try await next(request, context)
    }
}
