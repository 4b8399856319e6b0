import Foundation
import HTTPExchange
import Threading

/// Where a cover may be downloaded from. A cover URL comes from a book service's answer, so it is
/// not trusted: it must be http(s) on one of the services' hosts (the configured base URLs', the
/// configured covers host, and the public services' documented cover hosts), and neither it nor any redirect may reach a loopback
/// or private address — unless a configured base itself is on one (a local mirror or stand-in).
struct CoverSource: Sendable {
    /// Hosts the public services serve covers from, beside their API hosts: Open Library's covers
    /// (which redirect to the Internet Archive's storage) and Google Books' thumbnails.
    static let documentedHosts: Set<String> = ["covers.openlibrary.org", "books.google.com", "books.googleusercontent.com"]
    /// Domains a cover may be redirected within (their subdomains too): where Open Library keeps them.
    static let redirectDomains: Set<String> = ["archive.org"]

    let hosts: Set<String>
    /// A configured base is loopback or private: its answers may point there too.
    let allowsLocal: Bool
    /// The addresses of a host; injectable so tests need no resolver.
    let resolve: @Sendable (String) async -> [[UInt8]]

    init(settings: BookServiceSettings, resolve: (@Sendable (String) async -> [[UInt8]])? = nil) {
        let bases = [settings.openLibraryURL, settings.openLibraryCoversURL, settings.googleBooksURL]
            .compactMap { URL(string: $0)?.host?.lowercased() }
        hosts = Self.documentedHosts.union(bases)
        let resolve = resolve ?? { host in (try? await BlockingWork.run { NetworkAddress.resolve(host) }) ?? [] }
        self.resolve = resolve
        // Decided from the configured bases' literal form only: "localhost" or an address.
        allowsLocal = bases.contains { base in
            base == "localhost" || base.hasSuffix(".localhost") || Self.literal(base).map(NetworkAddress.isLocal) == true
        }
    }

    /// Why `url` must not be fetched as a cover, or nil when it may.
    func refusal(cover url: URL) async -> String? {
        guard let host = url.host?.lowercased(), !host.isEmpty else { return "no host" }
        guard hosts.contains(host) else { return "\(host) is not one of the book services' hosts" }
        return await refusal(anyHost: url)
    }

    /// Why a cover's redirect to `url` must not be followed, or nil when it may.
    func refusal(redirect url: URL) async -> String? {
        guard let host = url.host?.lowercased(), !host.isEmpty else { return "no host" }
        let within = hosts.contains(host) || Self.redirectDomains.contains { host == $0 || host.hasSuffix("." + $0) }
        guard within else { return "\(host) is not one of the book services' hosts" }
        return await refusal(anyHost: url)
    }

    private func refusal(anyHost url: URL) async -> String? {
        guard let scheme = url.scheme?.lowercased(), scheme == "http" || scheme == "https" else { return "not an http(s) URL" }
        guard !allowsLocal, let host = url.host else { return nil }
        if host.lowercased() == "localhost" || host.lowercased().hasSuffix(".localhost") { return "\(host) is this machine" }
        // Every address it resolves to: one private address among public ones is enough to refuse.
        if await resolve(host).contains(where: NetworkAddress.isLocal) { return "\(host) is a loopback or private address" }
        return nil
    }

    /// The bytes of an IPv4 or IPv6 literal (brackets allowed), nil for a name.
    static func literal(_ host: String) -> [UInt8]? {
        var name = host
        if name.hasPrefix("["), name.hasSuffix("]") { name = String(name.dropFirst().dropLast()) }
        var v4 = in_addr()
        if inet_pton(AF_INET, name, &v4) == 1 { return withUnsafeBytes(of: &v4) { Array($0) } }
        var v6 = in6_addr()
        if inet_pton(AF_INET6, name, &v6) == 1 { return withUnsafeBytes(of: &v6) { Array($0) } }
        return nil
    }

    /// The redirect policy for a cover download.
    var redirects: HTTPExchange.Redirects {
        HTTPExchange.Redirects(limit: 5) { url in await self.refusal(redirect: url) }
    }
}
