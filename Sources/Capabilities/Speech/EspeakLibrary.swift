import CEspeakNG
import Foundation
import Threading

/// libespeak-ng inside this process, called from one thread of its own.
///
/// The library keeps global state (the voice, the parameters, the output callback), so every call
/// into it happens on one dedicated thread that this type starts on first use and keeps for the
/// life of the process. Async callers queue a request and await it; nothing blocks Swift's
/// cooperative pool. Loading the phoneme data and dictionaries once, instead of starting an
/// `espeak-ng` process for every line, is what makes it several times cheaper than the subprocess
/// (about 4 ms of CPU for a line of dialogue instead of 15, see docs/speech.md).
///
/// One process has one synthesizer, so syntheses are serialized: a host gets parallel synthesis
/// from several worker processes, as the deployment runs them.
public final class EspeakLibrary: Sendable {
    /// The process's synthesizer.
    public static let shared = EspeakLibrary()

    struct Request: Sendable {
        var text: String
        var voice: String
        var wordsPerMinute: Int
        var pitch: Int
        var amplitude: Int
    }

    private let thread = DedicatedThreads<Request, LibraryAudio>(count: 1, name: "reparto-espeak") {
        var engine = EspeakEngine.start()
        return { request, cancellation in
            engine.perform(text: request.text, voice: request.voice, wordsPerMinute: request.wordsPerMinute,
                           pitch: request.pitch, amplitude: request.amplitude, cancellation: cancellation)
        }
    }

    private init() {}

    /// Speaks `text` with `voice` (an id `espeak_ng_SetVoiceByName` accepts: `en-us`, `en-us+Alicia`).
    /// - Parameters:
    ///   - wordsPerMinute: espeak-ng's rate (80–450 are sensible).
    ///   - pitch: 0–99, 50 is espeak-ng's normal.
    ///   - amplitude: 0–200, 100 is espeak-ng's normal.
    /// - Throws: ``SpeechError/unknownVoice(_:provider:)``, ``SpeechError/engineError(provider:message:)``,
    ///   or `CancellationError` when the task was cancelled before or during synthesis.
    public func synthesize(text: String, voice: String, wordsPerMinute: Int, pitch: Int, amplitude: Int = 100) async throws -> LibraryAudio {
        try await thread.run(Request(text: text, voice: voice, wordsPerMinute: wordsPerMinute, pitch: pitch, amplitude: amplitude))
    }
}

/// libespeak-ng driven synchronously by the one thread that owns it (``EspeakLibrary``'s thread,
/// or the main thread of a ``SpeechHelper`` process): whether the library started, and the voice
/// it has loaded.
struct EspeakEngine {
    static let provider = EspeakProvider.providerID

    /// The library's functions; nil when it could not be loaded (`sampleRate` says why).
    var espeak: EspeakSymbols?
    var sampleRate: Result<Int, SpeechError>
    var loadedVoice: String?

    /// Loads libespeak-ng (``EspeakSymbols``) and initializes it for synchronous output into
    /// ``synthCallback``.
    @available(*, noasync)
    static func start() -> EspeakEngine {
        let espeak: EspeakSymbols
        do {
            espeak = try EspeakSymbols.load(provider: provider)
        } catch {
            return EspeakEngine(espeak: nil, sampleRate: .failure(error))
        }
        espeak.initializePath(nil)
        var context: espeak_ng_ERROR_CONTEXT?
        let status = espeak.initialize(&context)
        espeak.clearErrorContext(&context)
        guard status == ENS_OK else {
            return EspeakEngine(espeak: espeak, sampleRate: .failure(.engineError(provider: provider, message: message(status, espeak))))
        }
        let output = espeak.initializeOutput(ENOUTPUT_MODE_SYNCHRONOUS, 0, nil)
        guard output == ENS_OK else {
            return EspeakEngine(espeak: espeak, sampleRate: .failure(.engineError(provider: provider, message: message(output, espeak))))
        }
        espeak.setSynthCallback(synthCallback)
        return EspeakEngine(espeak: espeak, sampleRate: .success(Int(espeak.getSampleRate())))
    }

    @available(*, noasync)
    mutating func perform(text requestText: String, voice: String, wordsPerMinute: Int, pitch: Int, amplitude: Int,
                          cancellation: CancellationFlag) -> Result<LibraryAudio, any Error> {
        if cancellation.isCancelled { return .failure(CancellationError()) }
        let rate: Int
        switch sampleRate {
        case .success(let value): rate = value
        case .failure(let error): return .failure(error)
        }
        guard let espeak else { return .failure(SpeechError.engineError(provider: Self.provider, message: "libespeak-ng is not loaded")) }
        if loadedVoice != voice {
            loadedVoice = nil
            let status = Self.selectVoice(voice, espeak)
            guard status == ENS_OK else {
                if status == ENS_VOICE_NOT_FOUND { return .failure(SpeechError.unknownVoice(voice, provider: Self.provider)) }
                return .failure(SpeechError.engineError(provider: Self.provider, message: Self.message(status, espeak)))
            }
            loadedVoice = voice
        }
        // The voice keeps parameters between syntheses: set every one a request depends on.
        // Clamped, not converted: a value from a request must never trap this thread.
        _ = espeak.setParameter(espeakRATE, Int32(clamping: wordsPerMinute), 0)
        _ = espeak.setParameter(espeakPITCH, Int32(clamping: pitch), 0)
        _ = espeak.setParameter(espeakVOLUME, Int32(clamping: amplitude), 0)

        let sink = SampleSink(cancellation: cancellation)
        let retained = Unmanaged.passRetained(sink)
        defer { retained.release() }
        // UTF-8, a sentence pause at the end and [[phoneme]] input, as the espeak-ng command reads
        // its input (a pronunciation lexicon's phonemes); no SSML, so markup is read as text.
        let flags = UInt32(espeakCHARS_UTF8) | UInt32(espeakENDPAUSE) | UInt32(espeakPHONEMES)
        // A C string ends at the first NUL: say the rest of the text too, as the command does.
        let text = requestText.contains("\0") ? requestText.replacingOccurrences(of: "\0", with: " ") : requestText
        let status = LibraryRandom.withSequence(seed: nil) {
            text.withCString { text in
                espeak.synthesize(text, strlen(text) + 1, 0, POS_CHARACTER, 0, flags, nil, retained.toOpaque())
            }
        }
        if cancellation.isCancelled { return .failure(CancellationError()) }
        guard status == ENS_OK else {
            return .failure(SpeechError.engineError(provider: Self.provider, message: Self.message(status, espeak)))
        }
        return .success(LibraryAudio(pcm: sink.pcm, sampleRate: rate))
    }

    /// As the `espeak-ng` command does for `-v`: a voice name or file (`en-us`, `gmw/en`,
    /// `en-us+Alicia`), else the best voice for a language of that name (`en-gb`, `en-gb+Alicia`).
    @available(*, noasync)
    static func selectVoice(_ name: String, _ espeak: EspeakSymbols) -> espeak_ng_STATUS {
        name.withCString { cName in
            let byName = espeak.setVoiceByName(cName)
            guard byName != ENS_OK else { return byName }
            var selector = espeak_VOICE()
            selector.languages = cName
            return espeak.setVoiceByProperties(&selector)
        }
    }

    static func message(_ status: espeak_ng_STATUS, _ espeak: EspeakSymbols) -> String {
        var buffer = [CChar](repeating: 0, count: 256)
        espeak.getStatusCodeMessage(status, &buffer, buffer.count)
        return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}

/// Collects one synthesis's samples; created, filled and read on the owner thread only.
private final class SampleSink {
    var pcm = Data()
    let cancellation: CancellationFlag

    init(cancellation: CancellationFlag) {
        self.cancellation = cancellation
    }
}

/// libespeak-ng's output callback (synchronous mode: called on the owner thread, inside
/// `espeak_ng_Synthesize`). The sink travels as the synthesis's `user_data`, which every event
/// carries. Returning 1 stops the synthesis (a cancelled request).
private let synthCallback: @convention(c) (UnsafeMutablePointer<Int16>?, Int32, UnsafeMutablePointer<espeak_EVENT>?) -> Int32 = {
    samples, count, events in
    guard let events, let opaque = events.pointee.user_data else { return 0 }
    let sink = Unmanaged<SampleSink>.fromOpaque(opaque).takeUnretainedValue()
    if let samples, count > 0 {
        sink.pcm.append(UnsafeBufferPointer(start: samples, count: Int(count)))
    }
    return sink.cancellation.isCancelled ? 1 : 0
}
