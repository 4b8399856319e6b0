import Foundation
import Postgres

extension JobClient {
    /// Starts a production of a multi-stage plan: in one transaction, the production row (its
    /// `plan`, first `stage` and `request` as its JSON parameters), the production type's own rows
    /// (`rows`, given the new id and the transaction's connection) and the first stage's job,
    /// enqueued under the production and stage with `options`' other settings. Nothing exists
    /// unless all of it commits. Returns the production id.
    ///
    /// ```swift
    /// let id = try await JobClient(postgres: pool).startProduction(
    ///     name: "pilot.fountain", plan: TableReadRequest.plan, stage: "parse", request: request,
    ///     firstJob: ParseJob(sourcePath: path, format: "fountain"), options: request.jobOptions) { id, connection in
    ///     try TableReadRows.create(productionID: id, request: request, on: connection)
    /// }
    /// ```
    public func startProduction<Request: Encodable & Sendable, First: JobParameters>(
        name: String, plan: String, stage: String, request: Request, firstJob: First, options: JobOptions,
        rows: @escaping @Sendable (UUID, PostgresConnection) throws -> Void = { _, _ in }
    ) async throws -> UUID {
        let parameters = try JSONEncoder().encode(request)
        var options = options
        let id = UUID.timeOrdered()
        options.productionID = id
        options.stage = stage
        let first = try JobRequest(firstJob, options: options)
        try await postgres.withTransaction { connection in
            _ = try Self.createProduction(id: id, name: name, plan: plan, stage: stage, parameters: parameters, in: connection)
            try rows(id, connection)
            try Self.enqueue([first], in: connection)
        }
        return id
    }
}
