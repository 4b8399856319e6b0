/// Thread names as Linux keeps them: at most 15 bytes (16 with the terminating zero).
/// `pthread_setname_np` refuses a longer name and leaves the thread with its creator's, so
/// `top -H` and a stack dump showed "reparto-worker-heartbeat" as its parent process's name.
public enum ThreadName {
    /// The most bytes of a thread's name Linux keeps.
    public static let limit = 15

    /// `name` cut to ``limit`` bytes on a character boundary, so that it is set.
    public static func fitted(_ name: String) -> String {
        guard name.utf8.count > limit else { return name }
        var fitted = ""
        for character in name {
            guard fitted.utf8.count + String(character).utf8.count <= limit else { break }
            fitted.append(character)
        }
        return fitted
    }
}
