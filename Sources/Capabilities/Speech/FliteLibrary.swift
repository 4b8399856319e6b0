import Foundation
import Threading

/// flite inside this process, called from one thread of its own.
///
/// Syntheses with flite's shared voice objects would be safe on several threads (per-request
/// settings live on each utterance, see ``FliteEngine``), but the clustergen voices draw noise
/// from the C library's one `rand()` sequence, so concurrent syntheses would not give the same
/// bytes for the same request. One owning thread keeps them reproducible; a process that runs
/// several workers speaks in parallel through a ``SpeechHelperPool`` instead. Async callers queue
/// a request and await it; nothing blocks Swift's cooperative pool.
public final class FliteLibrary: Sendable {
    /// The process's synthesizer.
    public static let shared = FliteLibrary()

    private let thread = DedicatedThreads<EngineRequest, LibraryAudio>(count: 1, name: "reparto-flite") {
        let engine = FliteEngine()
        return { request, cancellation in
            engine.perform(text: request.text, voice: request.voice, durationStretch: Double(request.rate) / 1000,
                           pitch: request.pitch, cancellation: cancellation)
        }
    }

    private init() {}

    /// Speaks `request` (its engine must be ``EngineRequest/Engine/flite``).
    /// - Throws: ``SpeechError/unknownVoice(_:provider:)``, ``SpeechError/engineError(provider:message:)``,
    ///   or `CancellationError` when the task was cancelled before or during synthesis.
    public func synthesize(_ request: EngineRequest) async throws -> LibraryAudio {
        precondition(request.engine == .flite, "FliteLibrary speaks flite requests only")
        return try await thread.run(request)
    }
}
