/// A message delivered by `NOTIFY` / `pg_notify` to a connection that is listening on `channel`.
public struct PostgresNotification: Sendable, Equatable, Hashable {
    /// The channel name, exactly as given to `NOTIFY` (``PostgresListener`` uses `""` for its
    /// synthetic "(re)connected, re-scan" notification).
    public var channel: String
    /// The payload (empty when none was given).
    public var payload: String
    /// The process ID of the notifying server backend (0 for synthetic notifications).
    public var pid: Int32

}
