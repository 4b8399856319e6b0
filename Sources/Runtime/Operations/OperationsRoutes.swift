import Foundation
import Hummingbird
import RepartoRuntime

/// The routes every Reparto HTTP server has: `/healthz`, `/readyz` and `/metrics`.
public enum OperationsRoutes {
    /// Adds `/healthz` (200 while the process runs), `/readyz` (200 when `readiness` says ready,
    /// 503 with the reasons otherwise) and `/metrics` (Prometheus text from ``RepartoMetrics``).
    public static func add<Context: RequestContext>(to router: Router<Context>,
                                                    readiness: @escaping @Sendable () async -> ReadinessStatus) {
        router.get(RouterPath(OperationsEndpoints.healthPath)) { _, _ in
            HTTPReply.text("ok\n")
        }
        router.get(RouterPath(OperationsEndpoints.readyPath)) { _, _ in
            let status = await readiness()
            return HTTPReply.text(status.summary + "\n", status: status.isReady ? .ok : .serviceUnavailable)
        }
        router.get(RouterPath(OperationsEndpoints.metricsPath)) { _, _ in
            HTTPReply.text(RepartoMetrics.exposition(), contentType: "text/plain; version=0.0.4; charset=utf-8")
        }
    }
}

/// Small response builders.
enum HTTPReply {
    static func text(_ text: String, status: HTTPResponse.Status = .ok,
                     contentType: String = "text/plain; charset=utf-8") -> Response {
        var headers = HTTPFields()
        headers[.contentType] = contentType
        headers[.cacheControl] = "no-store"
        return Response(status: status, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(string: text)))
    }

    static func json<T: Encodable>(_ value: T, status: HTTPResponse.Status = .ok) -> Response {
        do {
            let data = try DashboardSnapshot.encoder.encode(value)
            return text(String(decoding: data, as: UTF8.self), status: status, contentType: "application/json; charset=utf-8")
        } catch {
            return text("{\"error\":\"encoding failed\"}", status: .internalServerError, contentType: "application/json; charset=utf-8")
        }
    }
}
