#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Whether a host is on this machine or a private network: what a URL taken from a remote answer
/// (a cover link, a redirect) must not reach, or it could read loopback services and the LAN.
public enum NetworkAddress {
    /// The addresses `host` resolves to (a name, or a literal in any form the resolver accepts:
    /// `127.1`, `2130706433`, `[::1]`), as 4 or 16 bytes each; empty when it does not resolve.
    /// Blocks on the resolver: call it off the cooperative pool.
    @available(*, noasync)
    public static func resolve(_ host: String) -> [[UInt8]] {
        var name = host
        if name.hasPrefix("["), name.hasSuffix("]") { name = String(name.dropFirst().dropLast()) }
        var hints = addrinfo()
        hints.ai_family = AF_UNSPEC
        #if canImport(Glibc)
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        #else
        hints.ai_socktype = SOCK_STREAM
        #endif
        var list: UnsafeMutablePointer<addrinfo>?
        guard getaddrinfo(name, nil, &hints, &list) == 0, let first = list else { return [] }
        defer { freeaddrinfo(first) }
        var addresses: [[UInt8]] = []
        var entry: UnsafeMutablePointer<addrinfo>? = first
        while let info = entry?.pointee {
            if let socketAddress = info.ai_addr {
                switch Int32(info.ai_family) {
                case AF_INET:
                    socketAddress.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { v4 in
                        addresses.append(withUnsafeBytes(of: v4.pointee.sin_addr) { Array($0) })
                    }
                case AF_INET6:
                    socketAddress.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { v6 in
                        addresses.append(withUnsafeBytes(of: v6.pointee.sin6_addr) { Array($0) })
                    }
                default: break
                }
            }
            entry = info.ai_next
        }
        return addresses
    }

    /// Loopback, unspecified, private (RFC 1918, unique local), shared (CGNAT), link-local,
    /// benchmarking, multicast or reserved: anything but a public unicast address. IPv6 forms that
    /// carry an IPv4 address (mapped, NAT64, 6to4) are judged by it.
    public static func isLocal(_ bytes: [UInt8]) -> Bool {
        switch bytes.count {
        case 4: return isLocalV4(bytes[0], bytes[1], bytes[2])
        case 16: break
        default: return true
        }
        let prefix10 = bytes[0..<10].allSatisfy { $0 == 0 }
        if prefix10, bytes[10] == 0xFF, bytes[11] == 0xFF { return isLocalV4(bytes[12], bytes[13], bytes[14]) }  // ::ffff:a.b.c.d
        if prefix10, bytes[10] == 0, bytes[11] == 0 { return true }  // ::, ::1, IPv4-compatible
        if bytes[0] == 0x00, bytes[1] == 0x64, bytes[2] == 0xFF, bytes[3] == 0x9B {  // 64:ff9b::/96
            return isLocalV4(bytes[12], bytes[13], bytes[14])
        }
        if bytes[0] == 0x20, bytes[1] == 0x02 { return isLocalV4(bytes[2], bytes[3], bytes[4]) }  // 2002::/16
        if bytes[0] & 0xFE == 0xFC { return true }  // fc00::/7 unique local
        if bytes[0] == 0xFE, bytes[1] & 0xC0 == 0x80 { return true }  // fe80::/10 link-local
        if bytes[0] == 0xFE, bytes[1] & 0xC0 == 0xC0 { return true }  // fec0::/10 site-local (deprecated)
        if bytes[0] == 0xFF { return true }  // multicast
        return false
    }

    private static func isLocalV4(_ a: UInt8, _ b: UInt8, _ c: UInt8) -> Bool {
        switch a {
        case 0, 10, 127: true
        case 100: b & 0xC0 == 64  // 100.64.0.0/10
        case 169: b == 254
        case 172: b & 0xF0 == 16
        case 192: (b == 168) || (b == 0 && c == 0) || (b == 0 && c == 2)
        case 198: b & 0xFE == 18 || (b == 51 && c == 100)
        case 203: b == 0 && c == 113
        case 224...255: true  // multicast, reserved, broadcast
        default: false
        }
    }
}
