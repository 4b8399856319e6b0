import Foundation
@testable import Speech
import Testing

/// libespeak-ng is loaded when the first synthesis needs it, not linked.
@Suite(.timeLimit(.minutes(1))) struct EspeakSymbolsTests {
    /// Every function is found (calling them is what the synthesis tests do, on the one thread
    /// that owns the library's global state).
    @Test func loadsEveryFunctionFromTheInstalledLibrary() throws {
        #expect(throws: Never.self) { _ = try EspeakSymbols.load(provider: "espeak-ng") }
    }

    @Test func aMissingLibraryIsAnEngineErrorThatSaysWhatToInstall() {
        #expect {
            _ = try EspeakSymbols.load(provider: "espeak-ng", library: "libespeak-ng-absent.so.9")
        } throws: { error in
            guard case SpeechError.engineError(let provider, let message) = error else { return false }
            return provider == "espeak-ng" && message.contains("libespeak-ng-absent.so.9") && message.contains("libespeak-ng1")
        }
    }
}
