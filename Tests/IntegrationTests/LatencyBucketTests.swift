import Foundation
@testable import RepartoRuntime
import Postgres
import RepartoTestSupport
import Testing

/// The rollups' run-time buckets (`reparto_latency_bucket`, float8 since migration 0013): bucket
/// b holds [2^(b/4) − 1, 2^((b+1)/4) − 1) ms. Each bound is worked out in numeric here, and the
/// whole microseconds on both sides of it land in the right bucket.
@Suite("rollups: run-time buckets at their bounds", .timeLimit(.minutes(2)))
struct LatencyBucketTests {
    @Test func everyBoundSplitsItsNeighbours() async throws {
        let cluster = try await TestCluster.make()
        let rows = try await cluster.postgres.query("""
            WITH bounds AS (
                SELECT b, ceil((power(2::numeric, b / 4.0) - 1) * 1000)::bigint AS first_us FROM generate_series(1, 95) AS b
            ), runs AS (
                SELECT b, b AS expected, first_us AS us FROM bounds
                UNION ALL SELECT b, b - 1, first_us - 1 FROM bounds
            )
            SELECT b, expected, us,
                   reparto_latency_bucket('succeeded', '2026-01-01 00:00:00+00'::timestamptz,
                                          '2026-01-01 00:00:00+00'::timestamptz + us * interval '1 microsecond') AS bucket
            FROM runs ORDER BY b, us
            """)
        #expect(rows.count == 190)
        let wrong = rows.filter { $0.int("bucket") != $0.int("expected") }
            .map { "\($0.int("us") ?? -1) µs: \($0.int("bucket") ?? -1), not \($0.int("expected") ?? -1)" }
        #expect(wrong.isEmpty, "\(wrong)")
        let edges = try await cluster.postgres.query("""
            SELECT reparto_latency_bucket('succeeded', t, t) AS zero,
                   reparto_latency_bucket('succeeded', t, t + interval '30 days') AS long,
                   reparto_latency_bucket('succeeded', t + interval '1 second', t) AS negative,
                   reparto_latency_bucket('dead', t, t + interval '1 second') AS dead
            FROM (SELECT '2026-01-01 00:00:00+00'::timestamptz AS t) AS s
            """).first
        #expect(edges?.int("zero") == 0)
        #expect(edges?.int("long") == 95, "the last bucket holds everything longer")
        #expect(edges?.int("negative") == 0, "a clock step back counts as no time")
        #expect(edges?.int("dead") == -1, "only successes have a run-time bucket")
        await cluster.shutdown()
    }
}
