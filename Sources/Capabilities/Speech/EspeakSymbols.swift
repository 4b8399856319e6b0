import CEspeakNG
#if canImport(Glibc)
import Glibc
#endif

/// The libespeak-ng functions Reparto calls, looked up in `libespeak-ng.so.1` when the first
/// synthesis needs them (`dlopen`), not linked into the binary.
///
/// libespeak-ng links an audio-output stack (pcaudio, PulseAudio, ALSA, libsndfile, X11, …, 29
/// libraries) that Reparto never uses: it synthesizes into memory. Linked, every process loaded and
/// relocated them at start-up, 2.8 MB of every worker's memory, including workers that never speak.
/// The header (`CEspeakNG`) still gives the types; the signatures below are the header's.
struct EspeakSymbols {
    /// The soname, as Debian's libespeak-ng1 installs it.
    static let library = "libespeak-ng.so.1"

    let initializePath: @convention(c) (UnsafePointer<CChar>?) -> Void
    let initialize: @convention(c) (UnsafeMutablePointer<espeak_ng_ERROR_CONTEXT?>?) -> espeak_ng_STATUS
    let clearErrorContext: @convention(c) (UnsafeMutablePointer<espeak_ng_ERROR_CONTEXT?>?) -> Void
    let initializeOutput: @convention(c) (espeak_ng_OUTPUT_MODE, Int32, UnsafePointer<CChar>?) -> espeak_ng_STATUS
    let setSynthCallback: @convention(c) (
        (@convention(c) (UnsafeMutablePointer<Int16>?, Int32, UnsafeMutablePointer<espeak_EVENT>?) -> Int32)?
    ) -> Void
    let getSampleRate: @convention(c) () -> Int32
    let setParameter: @convention(c) (espeak_PARAMETER, Int32, Int32) -> espeak_ng_STATUS
    let setVoiceByName: @convention(c) (UnsafePointer<CChar>?) -> espeak_ng_STATUS
    let setVoiceByProperties: @convention(c) (UnsafeMutablePointer<espeak_VOICE>?) -> espeak_ng_STATUS
    let synthesize: @convention(c) (
        UnsafeRawPointer?, Int, UInt32, espeak_POSITION_TYPE, UInt32, UInt32, UnsafeMutablePointer<UInt32>?, UnsafeMutableRawPointer?
    ) -> espeak_ng_STATUS
    let getStatusCodeMessage: @convention(c) (espeak_ng_STATUS, UnsafeMutablePointer<CChar>?, Int) -> Void

    /// Loads the library (once per process: `dlopen` counts references) and looks up each function.
    /// - Throws: ``SpeechError/engineError(provider:message:)`` naming the library or the missing
    ///   function, with `dlerror`'s reason.
    @available(*, noasync)
    static func load(provider: String, library: String = library) throws(SpeechError) -> EspeakSymbols {
        guard let handle = dlopen(library, RTLD_NOW | RTLD_LOCAL) else {
            throw .engineError(provider: provider, message: "cannot load \(library): \(lastError()) (install libespeak-ng1)")
        }
        // The type comes from the property each lookup initializes: the signatures are written once.
        func symbol<F>(_ name: String) throws(SpeechError) -> F {
            guard let address = dlsym(handle, name) else {
                throw .engineError(provider: provider, message: "\(library) has no \(name): \(lastError())")
            }
            return unsafeBitCast(address, to: F.self)
        }
        return EspeakSymbols(
            initializePath: try symbol("espeak_ng_InitializePath"),
            initialize: try symbol("espeak_ng_Initialize"),
            clearErrorContext: try symbol("espeak_ng_ClearErrorContext"),
            initializeOutput: try symbol("espeak_ng_InitializeOutput"),
            setSynthCallback: try symbol("espeak_SetSynthCallback"),
            getSampleRate: try symbol("espeak_ng_GetSampleRate"),
            setParameter: try symbol("espeak_ng_SetParameter"),
            setVoiceByName: try symbol("espeak_ng_SetVoiceByName"),
            setVoiceByProperties: try symbol("espeak_ng_SetVoiceByProperties"),
            synthesize: try symbol("espeak_ng_Synthesize"),
            getStatusCodeMessage: try symbol("espeak_ng_GetStatusCodeMessage"))
    }

    private static func lastError() -> String {
        dlerror().map { String(cString: $0) } ?? "unknown error"
    }
}
