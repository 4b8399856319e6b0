/// Advisory-lock keys of the leaders (coordinator, outbox relay) of one namespace.
enum LeaderLock {
    /// `base` (seven ASCII bytes, such as "reparto") shifted up one byte, with a 24-bit FNV-1a hash
    /// of the namespace below: stable across processes (unlike `Hasher`), one key per namespace.
    static func key(base: Int64, namespace: String) -> Int64 {
        var hash: UInt32 = 2_166_136_261
        for byte in namespace.utf8 { hash = (hash ^ UInt32(byte)) &* 16_777_619 }
        let low = Int64(hash & 0xff_ffff)
        return (base << 8) ^ low
    }
}
