/// Names written "Last, First" by the exports.
public enum PersonName {
    /// "Le Guin, Ursula K." → "Ursula K. Le Guin"; a name with no comma, or with a suffix after the
    /// comma ("King, Jr."), stays as written.
    public static func turned(_ name: String) -> String {
        let trimmed = name.trimmingSpaces
        let parts = trimmed.split(separator: ",", omittingEmptySubsequences: false).map { String($0).trimmingSpaces }
        guard parts.count == 2, !parts[0].isEmpty, !parts[1].isEmpty else { return trimmed }
        let suffixes: Set<String> = ["jr", "jr.", "sr", "sr.", "ii", "iii", "iv"]
        guard !suffixes.contains(parts[1].lowercased()) else { return trimmed }
        return parts[1] + " " + parts[0]
    }
}
