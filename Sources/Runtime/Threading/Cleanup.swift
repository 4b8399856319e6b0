/// Runs `body`, then `cleanup` whether `body` returned or threw: an `async` `defer` (a `defer`
/// block cannot await), e.g. shutting a pool or a service group down after the work that used it.
public func withCleanup<T>(isolation: isolated (any Actor)? = #isolation, _ body: () async throws -> T,
                           cleanup: () async -> Void) async throws -> T {
    let value: T
    do {
        value = try await body()
    } catch {
        await cleanup()
        throw error
    }
    await cleanup()
    return value
}
