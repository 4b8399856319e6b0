import Foundation
import HTTPExchange
import Testing
@testable import BookImport

/// Cover URLs come from a book service's answer: only http(s), only the services' hosts, never a
/// loopback or private address unless the configured service itself is on one.
@Suite(.timeLimit(.minutes(1)))
struct CoverSourceTests {
    static let publicAddress: [UInt8] = [93, 184, 216, 34]

    /// The public services, with a resolver that answers `addresses` for every name.
    func publicSource(_ addresses: [[UInt8]] = [CoverSourceTests.publicAddress]) -> CoverSource {
        CoverSource(settings: BookServiceSettings(), resolve: { _ in addresses })
    }

    func url(_ text: String) throws -> URL { try #require(URL(string: text)) }

    @Test(arguments: ["https://covers.openlibrary.org/b/id/240726-L.jpg",
                      "http://books.google.com/books/content?id=B1hSG45JCX4C&printsec=frontcover&img=1",
                      "https://openlibrary.org/images/icons/avatar_book.png"])
    func theServicesCoverHostsAreFetched(_ cover: String) async throws {
        #expect(await publicSource().refusal(cover: try url(cover)) == nil)
    }

    @Test(arguments: [("http://127.0.0.1:5432/", "127.0.0.1 is not one of the book services' hosts"),
                      ("http://169.254.169.254/latest/meta-data/", "169.254.169.254 is not one of the book services' hosts"),
                      ("http://localhost/cover.jpg", "localhost is not one of the book services' hosts"),
                      ("https://evil.example/cover.jpg", "evil.example is not one of the book services' hosts"),
                      ("ftp://covers.openlibrary.org/b/id/1-L.jpg", "not an http(s) URL"),
                      ("file:///etc/passwd", "no host")])
    func otherURLsAreRefused(_ cover: String, _ reason: String) async throws {
        #expect(await publicSource().refusal(cover: try url(cover)) == reason)
    }

    @Test(arguments: [[UInt8]([127, 0, 0, 1]), [10, 1, 2, 3], [192, 168, 0, 10], [172, 20, 0, 1], [169, 254, 169, 254], [100, 64, 0, 1],
                      [0, 0, 0, 0], [UInt8](repeating: 0, count: 15) + [1], [0xFD] + [UInt8](repeating: 0, count: 15),
                      [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xFF, 0xFF, 10, 0, 0, 1]])
    func aServiceHostResolvingToAPrivateAddressIsRefused(_ address: [UInt8]) async throws {
        let source = publicSource([Self.publicAddress, address])
        #expect(await source.refusal(cover: try url("https://covers.openlibrary.org/b/id/1-L.jpg"))
                == "covers.openlibrary.org is a loopback or private address")
    }

    @Test func redirectsStayWithinTheServicesAndTheArchive() async throws {
        let source = publicSource()
        #expect(await source.refusal(redirect: try url("https://archive.org/download/m_covers_0012/m_covers_0012_59.zip/12599-L.jpg")) == nil)
        #expect(await source.refusal(redirect: try url("https://ia800100.us.archive.org/view_archive.php?archive=x")) == nil)
        #expect(await source.refusal(redirect: try url("https://evil-archive.org/x")) == "evil-archive.org is not one of the book services' hosts")
        #expect(await source.refusal(redirect: try url("http://localhost:15672/api/queues")) == "localhost is not one of the book services' hosts")
        let rebinding = publicSource([[127, 0, 0, 1]])
        #expect(await rebinding.refusal(redirect: try url("https://ia800100.us.archive.org/x")) == "ia800100.us.archive.org is a loopback or private address")
    }

    @Test func aLocalServiceMayServeLocalCovers() async throws {
        let settings = BookServiceSettings(openLibraryURL: "http://127.0.0.1:8099", googleBooksURL: "http://127.0.0.1:9")
        let source = CoverSource(settings: settings, resolve: { _ in [[127, 0, 0, 1]] })
        #expect(source.allowsLocal)
        #expect(await source.refusal(cover: try url("http://127.0.0.1:8099/covers/dune-L.jpg")) == nil)
        #expect(await source.refusal(cover: try url("http://10.0.0.1/covers/x.jpg")) == "10.0.0.1 is not one of the book services' hosts")
        #expect(!CoverSource(settings: BookServiceSettings(openLibraryURL: "https://mirror.example.org")).allowsLocal)
    }

    @Test func theResolverSeesThroughOtherSpellingsOfLoopback() {
        for spelling in ["127.1", "2130706433", "0x7f000001", "[::1]", "::ffff:127.0.0.1", "localhost"] {
            let addresses = NetworkAddress.resolve(spelling)
            #expect(!addresses.isEmpty, "\(spelling) resolves")
            #expect(addresses.allSatisfy(NetworkAddress.isLocal), "\(spelling): \(addresses)")
        }
        #expect(!NetworkAddress.isLocal(Self.publicAddress))
        #expect(!NetworkAddress.isLocal([0x26, 0x06, 0x47, 0x00] + [UInt8](repeating: 0, count: 11) + [1]))
    }
}
