import CFlite
import Foundation
import Threading
#if canImport(Glibc)
import Glibc
#endif

/// flite driven synchronously by a thread that owns it (``FliteLibrary``'s thread, or the main
/// thread of a ``SpeechHelper`` process).
///
/// Each voice library registers one voice object per process, so every engine of a process shares
/// those objects. Per-request settings are never written to them: they go on the request's own
/// utterance, whose features flite searches before the voice's (`utt_init` links the voice's
/// behind them), so a request's speed or pitch cannot leak into the next one or into another
/// thread's synthesis.
///
/// The clustergen voices (slt, rms, awb) draw their mixed-excitation noise from the C library's
/// one `rand()` sequence, so the engine seeds it before each synthesis and holds it meanwhile
/// (``LibraryRandom``): the same request then gives the same samples. That is why a process
/// synthesizes with one flite thread and gets parallelism from helper processes.
struct FliteEngine {
    static let provider = FliteProvider.providerID

    /// Speaks `text` with the voice `voice` (``FliteVoices/all``'s ids).
    /// - Parameters:
    ///   - durationStretch: flite's `duration_stretch` (1 = the voice's own speed, 2 = half as fast).
    ///   - pitch: 0–99; 50 keeps the voice's own mean pitch, each 50 steps move it half an octave.
    @available(*, noasync)
    func perform(text requestText: String, voice: String, durationStretch: Double, pitch: Int,
                 cancellation: CancellationFlag) -> Result<LibraryAudio, any Error> {
        if cancellation.isCancelled { return .failure(CancellationError()) }
        guard let handle = FliteVoices.registered[voice] else {
            guard FliteVoices.ids.contains(voice) else { return .failure(SpeechError.unknownVoice(voice, provider: Self.provider)) }
            return .failure(SpeechError.engineError(provider: Self.provider,
                                                    message: "voice \(voice) could not be loaded from \(FliteVoices.library(voice))"))
        }
        guard let utterance = new_utterance() else {
            return .failure(SpeechError.engineError(provider: Self.provider, message: "cannot create an utterance"))
        }
        let features = utterance.pointee.features
        feat_set_float(features, FliteVoices.durationStretchName, Float(min(4, max(0.25, durationStretch))))
        feat_set_float(features, FliteVoices.f0MeanName, Float(FliteVoices.f0Mean(handle, pitch: pitch)))
        // A C string ends at the first NUL: say the rest of the text too.
        let text = requestText.contains("\0") ? requestText.replacingOccurrences(of: "\0", with: " ") : requestText
        _ = text.withCString { utt_set_input_text(utterance, $0) }
        // flite_do_synth deletes the utterance when the synthesis fails.
        let synthesized = LibraryRandom.withSequence(seed: 1) { UtterancePointer(flite_do_synth(utterance, handle, utt_synth)) }
        guard let spoken = synthesized.pointer else {
            return .failure(SpeechError.engineError(provider: Self.provider, message: "synthesis failed"))
        }
        defer { delete_utterance(spoken) }
        if cancellation.isCancelled { return .failure(CancellationError()) }
        guard let wave = utt_wave(spoken), wave.pointee.num_channels == 1, let samples = wave.pointee.samples else {
            return .failure(SpeechError.engineError(provider: Self.provider, message: "no mono wave in the utterance"))
        }
        let pcm = Data(bytes: samples, count: Int(wave.pointee.num_samples) * MemoryLayout<Int16>.size)
        return .success(LibraryAudio(pcm: pcm, sampleRate: Int(wave.pointee.sample_rate)))
    }
}

/// The voices flite is built with, registered once per process.
enum FliteVoices {
    /// The voices Debian's libflite1 ships.
    static let ids = ["kal", "kal16", "slt", "rms", "awb"]

    /// A voice's library; it exports `register_cmu_us_<id>`.
    static func library(_ id: String) -> String { "libflite_cmu_us_\(id).so.1" }

    /// The process's voice objects by id. Registration checks and sets a global per voice, so it
    /// happens once (Swift's lazy globals run their initializer once, whichever thread comes first).
    nonisolated(unsafe) static let registered: [String: UnsafeMutablePointer<cst_voice>] = {
        _ = flite_init()
        let voices = ids.map { id in (id, reparto_flite_register(library(id), "register_cmu_us_\(id)")) }
        return Dictionary(uniqueKeysWithValues: voices.compactMap { id, voice in voice.map { (id, $0) } })
    }()

    // flite keeps a feature's name pointer (it does not copy it): names that live as long as the process.
    nonisolated(unsafe) static let durationStretchName = UnsafePointer(strdup("duration_stretch")!)
    nonisolated(unsafe) static let f0MeanName = UnsafePointer(strdup("int_f0_target_mean")!)

    /// The mean F0 (Hz) for `pitch` around the voice's own: the diphone voices (kal, kal16) set
    /// `int_f0_target_mean`, the clustergen voices carry it in their model.
    static func f0Mean(_ voice: UnsafeMutablePointer<cst_voice>, pitch: Int) -> Double {
        let features = voice.pointee.features
        var own = Double(get_param_float(features, f0MeanName, 0))
        if own <= 0, let model = get_param_val(features, "cg_db", nil), let db = val_cg_db(model) {
            own = Double(db.pointee.f0_mean)
        }
        if own <= 0 { own = 100 }
        let steps = Double(max(0, min(99, pitch)) - 50)
        return own * pow(2, steps / 100)
    }
}

/// An utterance handed back from the ``LibraryRandom`` section to the owner thread that made it.
private struct UtterancePointer: @unchecked Sendable {
    var pointer: UnsafeMutablePointer<cst_utterance>?
    init(_ pointer: UnsafeMutablePointer<cst_utterance>?) { self.pointer = pointer }
}
