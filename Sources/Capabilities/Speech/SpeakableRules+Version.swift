extension SpeakableRules {
    /// The version of these rules: raised whenever the same script would give other lines, other
    /// speakers or another delivery, so a read's results say which rules made its lines.
    public static let version = 2
}
