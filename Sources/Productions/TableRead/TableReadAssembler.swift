import SpeechJobs
import Assets
import Foundation
import Screenplay
import Speech

/// The files and figures of an assembled table read.
public struct TableReadOutputs: Codable, Sendable, Hashable {
    /// `table-read.wav`: every spoken line in script order with pauses.
    public var audio: AssetRecord
    /// `table-read.vtt`: a WebVTT cue per spoken line (speaker, start, end).
    public var subtitles: AssetRecord
    /// `chapters.json`: chapters and scenes with their start and end times.
    public var chapters: AssetRecord
    /// `report.json`: what was assembled and what is missing, with the reasons.
    public var report: AssetRecord
    public var durationSeconds: Double
    public var peakDBFS: Double?
    public var rmsDBFS: Double?
    public var spokenLines: Int
    public var missingLines: Int
    /// Integrated loudness and true peak after normalization (nil when it was skipped).
    public var loudnessLUFS: Double?
    public var truePeakDBTP: Double?
    /// `table-read.mp3`, `table-read.m4b`: the formats asked for besides the WAV.
    public var encodings: [AssetRecord] = []
    /// Lines whose audio is silent or clipped.
    public var flagged: [TableReadReport.FlaggedLine] = []
}

/// The contents of `report.json`.
public struct TableReadReport: Codable, Sendable, Hashable {
    /// A line that is not in the table read, and why.
    public struct MissingLine: Codable, Sendable, Hashable {
        public var chapterIndex: Int
        public var orderIndex: Int
        public var speaker: String
        public var text: String
        public var reason: String
    }
    /// A line whose audio is in the read but sounds wrong (silent, clipped).
    public struct FlaggedLine: Codable, Sendable, Hashable {
        public var chapterIndex: Int
        public var orderIndex: Int
        public var speaker: String
        public var text: String
        public var defects: [AudioDefect]
    }
    public var productionID: UUID
    public var source: String
    public var documentID: UUID?
    public var lines: Int
    public var spokenLines: Int
    public var missing: [MissingLine]
    public var durationSeconds: Double
    public var peakDBFS: Double?
    public var rmsDBFS: Double?
    public var audioPath: String
    public var subtitlesPath: String
    public var chaptersPath: String
    /// What the parser warned about when it read the script (an unknown element read as action,
    /// unexpected nesting, a legacy encoding); empty for a clean script.
    public var warnings: [ParseWarning]
    /// The audio's loudness after normalization, or why it was not normalized.
    public var loudness: TableReadLoudness?
    /// The encoded files (MP3, M4B), and why any asked for is missing.
    public var encodings: [String]?
    public var encodingErrors: [String]?
    /// Lines whose audio is silent or clipped (nil in reports written before this was checked).
    public var flagged: [FlaggedLine]?
}

/// How loud the table read is: for the podcast master normalized to `targetLUFS` with the true
/// peak at most `truePeakCeilingDBTP`, for the ACX master to ACX's levels (``acx``, measured on
/// the MP3), or `skipped` with the reason.
public struct TableReadLoudness: Codable, Sendable, Hashable {
    /// What the levels are for (nil in reports written before masters existed: podcast).
    public var master: AudioMaster?
    /// The podcast master's loudness target; nil for the ACX master, which aims at an RMS level.
    public var targetLUFS: Double?
    /// The podcast master's true-peak ceiling; the ACX master's peak ceiling (sample and true
    /// peak of the decoded MP3).
    public var truePeakCeilingDBTP: Double
    /// `linear` (one gain), `limited` (one gain and a peak limiter), `skipped`; reads normalized
    /// before the limiter existed say `dynamic` (ffmpeg's loudnorm).
    public var mode: String
    public var integratedLUFS: Double?
    public var truePeakDBTP: Double?
    /// Before normalization: the loudness and the sample peak (older reports: the true peak).
    public var sourceLUFS: Double?
    public var sourceTruePeakDBTP: Double?
    public var sourceSamplePeakDBFS: Double?
    /// Why it was skipped.
    public var reason: String?
    /// The ACX master's requirements and what was measured on its MP3 (nil for the podcast master).
    public var acx: ACX?

    /// ACX's requirements, and what the MP3 measured when decoded again (levels in dBFS, times in
    /// seconds; a level is nil where it is −∞, digital silence).
    public struct ACX: Codable, Sendable, Hashable {
        public var targetRMSDBFS: Double
        /// Lowest and highest allowed: `[-23, -18]`.
        public var rmsRange: [Double]
        public var peakCeilingDB: Double
        public var noiseFloorCeilingDBFS: Double
        public var roomToneDBFS: Double
        public var headRange: [Double]
        public var tailRange: [Double]
        public var mp3BitRateKbps: Int
        public var sampleRate: Int
        public var rmsDBFS: Double?
        public var samplePeakDBFS: Double?
        public var truePeakDBTP: Double?
        /// The RMS of the quietest 0.5 s.
        public var noiseFloorDBFS: Double?
        /// Room tone before the first word and after the last.
        public var headSeconds: Double
        public var tailSeconds: Double
        /// The one gain applied, where the limiter stood, and how many times the MP3 was encoded.
        public var gainDB: Double
        public var limitDB: Double
        public var encodes: Int
        /// What still breaks a requirement; empty when the MP3 passes.
        public var problems: [String]

        public var passes: Bool { problems.isEmpty }
    }
}

/// The contents of `chapters.json`.
public struct TableReadChapters: Codable, Sendable, Hashable {
    public struct Scene: Codable, Sendable, Hashable {
        public var index: Int
        public var heading: String
        public var start: Double
        public var end: Double
    }
    public struct Chapter: Codable, Sendable, Hashable {
        public var index: Int
        public var title: String
        public var start: Double
        public var end: Double
        public var scenes: [Scene]
    }
    public var chapters: [Chapter]
}

/// Builds a production's table read on the asset volume: streams every line's audio into one
/// WAV with pauses (never holding the whole read in memory), then writes the subtitles, the
/// chapters and the report into the production's folder (with its `metadata.json`).
///
/// Blocking file I/O throughout: call ``assemble(_:)`` off the cooperative pool.
struct TableReadAssembler {
    let store: AssetStore
    /// Normalizes the assembled audio's loudness and encodes the other formats; nil leaves the
    /// WAV as spoken and encodes nothing (the report says why).
    var ffmpeg: FFmpegTool?
    struct Input: Sendable {
        var productionID: UUID
        var documentID: UUID?
        var sourceName: String
        var lines: [AssemblyLine]
        /// Why a line has no audio, by content key.
        var failures: [String: String]
        var sceneHeadings: [Int: String]
        var parseWarnings: [ParseWarning] = []
        /// Formats besides the WAV master (MP3, M4B).
        var formats: [AudioFileFormat] = []
        /// The title page's title and author, for the encoded files' tags.
        var title: String?
        var author: String?
        /// Where the audio goes: its levels, room tone and MP3 encoding.
        var master: AudioMaster = .podcast
    }

    static let audioName = "table-read.wav"
    static let subtitlesName = "table-read.vtt"
    static let chaptersName = "chapters.json"
    static let reportName = "report.json"
    /// Used when no line has audio (an empty but valid WAV).
    static let fallbackFormat = WAVFormat.pcm16(sampleRate: 22050)

    var pauses: TableReadTimeline.Pauses = .standard
    /// The ACX master's levels, head and tail.
    var acxLevels: AudioMasterLevels = .acx

    @available(*, noasync, message: "blocking file I/O")
    func assemble(_ input: Input) throws -> (TableReadOutputs, TableReadReport) {
        var missing: [TableReadReport.MissingLine] = []
        func reportMissing(_ line: TableReadLine, _ reason: String) {
            missing.append(.init(chapterIndex: line.chapterIndex, orderIndex: line.orderIndex, speaker: line.speaker,
                                 text: line.text, reason: reason))
        }
        var byKey: [String: AssemblyLine] = [:]
        var timelineLines: [TableReadTimeline.Line] = []
        for item in input.lines {
            let line = item.line
            let hasAudio = item.filePath != nil && item.durationSeconds != nil
            if !hasAudio {
                reportMissing(line, input.failures[line.contentKey]
                              ?? "no audio was generated for this line")
            }
            byKey["\(line.chapterIndex)/\(line.orderIndex)"] = item
            timelineLines.append(.init(chapterIndex: line.chapterIndex, orderIndex: line.orderIndex, sceneIndex: line.sceneIndex,
                                       speaker: line.speaker, text: line.text, duration: hasAudio ? item.durationSeconds : nil,
                                       deliveryPause: line.delivery?.pauseBefore ?? 0))
        }
        let timeline = TableReadTimeline(lines: timelineLines, pauses: pauses)
        let folder = store.folder(.production, id: input.productionID.uuidString.lowercased())

        // The audio: a placeholder header, then each line at its timeline position.
        let writer = try store.beginStream(to: try folder.path(of: Self.audioName), mimeType: "audio/wav")
        var format: WAVFormat?
        var framesWritten = 0
        var placed: [TableReadTimeline.Cue] = []
        var flagged: [TableReadReport.FlaggedLine] = []
        var energy = 0.0
        var peak: Double?
        var meter: LoudnessMeter?  // measures while writing, so normalization needs no measuring pass
        // The ACX master places the first word at its head of room tone (whatever quiet the
        // line's audio starts with included) and every later line as planned after it.
        var offsetFrames: Int?
        var trailingQuiet = 0
        try writer.append(WAVWriter.header(format: Self.fallbackFormat, dataLength: 0))
        for cue in timeline.cues {
            guard let item = byKey["\(cue.line.chapterIndex)/\(cue.line.orderIndex)"], let path = item.filePath else { continue }
            let body: Data
            let bodyFormat: WAVFormat
            do {
                let data = try store.readVerifiedBlocking(path, sha256: item.sha256 ?? "")
                (body, bodyFormat) = try Self.pcmBody(of: data, convertingTo: format)
            } catch {
                reportMissing(item.line, "audio unusable: \(error)")
                continue
            }
            let target = format ?? bodyFormat
            if format == nil, target.encoding == .integer, target.bitsPerSample == 16 {
                meter = LoudnessMeter(sampleRate: target.sampleRate, channels: target.channels)
            }
            format = target
            if target.encoding == .integer, target.bitsPerSample == 16 {
                let defects = AudioDefect.detect(pcm16: body)
                if !defects.isEmpty {
                    flagged.append(.init(chapterIndex: item.line.chapterIndex, orderIndex: item.line.orderIndex,
                                         speaker: item.line.speaker, text: item.line.text, defects: defects))
                }
            }
            let planned = Int((cue.start * Double(target.sampleRate)).rounded())
            if offsetFrames == nil {
                offsetFrames = input.master == .acx
                    ? max(Int((acxLevels.headSeconds * Double(target.sampleRate)).rounded())
                          - Self.quietFrames(body, format: target, atEnd: false), 0) - planned
                    : 0
            }
            let startFrame = max(framesWritten, planned + (offsetFrames ?? 0))
            if input.master == .acx { trailingQuiet = Self.quietFrames(body, format: target, atEnd: true) }
            try Self.appendSilence(frames: startFrame - framesWritten, format: target, to: writer)
            try writer.append(body)
            meter?.appendSilence(frames: startFrame - framesWritten)
            meter?.append(pcm16: body)
            let frames = body.count / target.blockAlign
            framesWritten = startFrame + frames
            let start = Double(startFrame) / Double(target.sampleRate)
            placed.append(.init(line: cue.line, pauseBefore: cue.pauseBefore, start: start,
                                end: start + Double(frames) / Double(target.sampleRate)))
            if let rms = item.rmsDBFS { energy += pow(10, rms / 10) * Double(frames) }
            if let p = item.peakDBFS { peak = max(peak ?? p, p) }
        }
        let audioFormat = format ?? Self.fallbackFormat
        if !placed.isEmpty {
            let tail = input.master == .acx
                ? max(Int((acxLevels.tailSeconds * Double(audioFormat.sampleRate)).rounded()) - trailingQuiet, 0)
                : Int((pauses.edge * Double(audioFormat.sampleRate)).rounded())
            try Self.appendSilence(frames: tail, format: audioFormat, to: writer)
            framesWritten += tail
            meter?.appendSilence(frames: tail)
        }
        let dataLength = framesWritten * audioFormat.blockAlign
        try writer.write(WAVWriter.header(format: audioFormat, dataLength: dataLength), at: 0)
        var audio = try writer.commit()
        var rms: Double? = framesWritten > 0 && energy > 0 ? 10 * log10(energy / Double(framesWritten)) : nil

        let duration = Double(framesWritten) / Double(audioFormat.sampleRate)
        missing.sort { ($0.chapterIndex, $0.orderIndex) < ($1.chapterIndex, $1.orderIndex) }

        let subtitles = try folder.writeBlocking(Data(WebVTT.document(cues: placed).utf8), name: Self.subtitlesName,
                                                 mimeType: "text/vtt")
        let chapterList = Self.chapters(placed, titles: Self.chapterTitles(input.lines), headings: input.sceneHeadings)
        let chapters = try folder.writeBlocking(try Self.json(chapterList), name: Self.chaptersName, mimeType: "application/json")
        let tags = AudioTags(title: input.title ?? input.sourceName, artist: input.author, chapters: Self.tagChapters(chapterList))
        let loudness: TableReadLoudness
        var encodings: [AssetRecord] = [], encodingErrors: [String] = []
        switch input.master {
        case .podcast:
            loudness = normalizeLoudness(&audio, sampleRate: audioFormat.sampleRate, spoken: !placed.isEmpty,
                                         measured: meter?.measurement.loudness, peak: &peak, rms: &rms)
        case .acx:
            let mp3: Result<AssetRecord, any Error>?
            (loudness, mp3) = masterForACX(&audio, spoken: !placed.isEmpty, measured: meter?.measurement, tags: tags,
                                           folder: folder, peak: &peak, rms: &rms)
            switch mp3 {
            case .success(let record): encodings.append(record)
            case .failure(let error): encodingErrors.append("mp3: \(error)")
            case nil: encodingErrors.append("mp3: " + (placed.isEmpty ? "no spoken line" : loudness.reason ?? "not mastered"))
            }
        }
        try folder.updateMetadataBlocking { $0.files[Self.audioName] = audio }
        let others = encode(audio, formats: input.master.deliveredFormats(input.formats).filter { input.master != .acx || $0 != .mp3 },
                            spoken: !placed.isEmpty, tags: tags, folder: folder)
        encodings += others.0
        encodingErrors += others.1
        let report = TableReadReport(
            productionID: input.productionID, source: input.sourceName, documentID: input.documentID, lines: input.lines.count,
            spokenLines: placed.count, missing: missing, durationSeconds: duration, peakDBFS: peak, rmsDBFS: rms,
            audioPath: audio.path, subtitlesPath: subtitles.path, chaptersPath: chapters.path, warnings: input.parseWarnings,
            loudness: loudness, encodings: encodings.map(\.path), encodingErrors: encodingErrors, flagged: flagged)
        let reportRecord = try folder.writeBlocking(try Self.json(report), name: Self.reportName, mimeType: "application/json")
        let outputs = TableReadOutputs(audio: audio, subtitles: subtitles, chapters: chapters, report: reportRecord,
                                       durationSeconds: duration, peakDBFS: peak, rmsDBFS: rms,
                                       spokenLines: placed.count, missingLines: missing.count,
                                       loudnessLUFS: loudness.integratedLUFS, truePeakDBTP: loudness.truePeakDBTP,
                                       encodings: encodings, flagged: flagged)
        return (outputs, report)
    }

    /// Normalizes the committed audio in place (ffmpeg writes a temporary file beside it, which
    /// replaces it atomically) and measures its levels again. Never fails the assembly: without
    /// ffmpeg, or when it fails, the audio stays as spoken and the report says why.
    private func normalizeLoudness(_ audio: inout AssetRecord, sampleRate: Int, spoken: Bool, measured: LoudnessMeasurement?,
                                   peak: inout Double?, rms: inout Double?) -> TableReadLoudness {
        let loudness = ffmpeg.map { LoudnessNormalizer(ffmpeg: $0) }
        let target = loudness?.target ?? .standard
        var result = TableReadLoudness(master: .podcast, targetLUFS: target.integratedLUFS,
                                       truePeakCeilingDBTP: target.truePeakCeilingDBTP, mode: "skipped")
        guard spoken else { result.reason = "no spoken line"; return result }
        guard let loudness else { result.reason = "ffmpeg not found (install ffmpeg, or set REPARTO_FFMPEG)"; return result }
        var temporary: String?
        do {
            let path = try store.temporaryPathBlocking(beside: audio.path)
            temporary = path
            let outcome = try loudness.normalize(try store.absolutePath(audio.path), into: path, sampleRate: sampleRate,
                                                 measured: measured)
            audio = try store.replaceBlocking(audio.path, with: path, mimeType: "audio/wav")
            (peak, rms) = (outcome.samplePeakDBFS.isFinite ? outcome.samplePeakDBFS : nil, outcome.rmsDBFS.isFinite ? outcome.rmsDBFS : nil)
            result.mode = outcome.mode
            (result.integratedLUFS, result.truePeakDBTP) = (outcome.after.integratedLUFS, outcome.after.truePeakDBTP)
            result.sourceLUFS = outcome.before.integratedLUFS
            (result.sourceTruePeakDBTP, result.sourceSamplePeakDBFS) = outcome.before.peakIsTrue
                ? (outcome.before.peakDB, nil) : (nil, outcome.before.peakDB)
        } catch {
            if let temporary { try? FileManager.default.removeItem(atPath: temporary) }
            result.reason = "\(error)"
        }
        return result
    }

    /// Masters the committed audio for ACX in place and writes its MP3 (``AudioMastering``: temporary
    /// files beside both, swapped in atomically). Never fails the assembly: without ffmpeg, or when
    /// it fails, the audio stays as spoken, and the report says why and what did not pass.
    private func masterForACX(_ audio: inout AssetRecord, spoken: Bool, measured: LoudnessMeter.Reading?, tags: AudioTags,
                              folder: AssetFolder, peak: inout Double?, rms: inout Double?)
        -> (TableReadLoudness, Result<AssetRecord, any Error>?) {
        let levels = acxLevels
        var result = TableReadLoudness(master: .acx, targetLUFS: nil, truePeakCeilingDBTP: levels.peakCeilingDB, mode: "skipped")
        guard spoken else { result.reason = "no spoken line"; return (result, nil) }
        guard let ffmpeg else { result.reason = "ffmpeg not found (install ffmpeg, or set REPARTO_FFMPEG)"; return (result, nil) }
        var scratch: [String] = []
        defer { for path in scratch { try? FileManager.default.removeItem(atPath: path) } }
        do {
            let wav = try store.temporaryPathBlocking(beside: audio.path)
            let mp3Name = "table-read.\(AudioFileFormat.mp3.rawValue)"
            let mp3Path = try folder.path(of: mp3Name)
            let mp3 = try store.temporaryPathBlocking(beside: mp3Path)
            scratch = [wav, mp3]
            let outcome = try AudioMastering(ffmpeg: ffmpeg, levels: levels).master(try store.absolutePath(audio.path), wav: wav, mp3: mp3,
                                                                                    tags: tags, measured: measured)
            audio = try store.replaceBlocking(audio.path, with: wav, mimeType: "audio/wav")
            let record = try store.replaceBlocking(mp3Path, with: mp3, mimeType: AudioFileFormat.mp3.mimeType)
            try folder.updateMetadataBlocking { $0.files[mp3Name] = record }
            func finite(_ value: Double?) -> Double? { value.flatMap { $0.isFinite ? $0 : nil } }
            (peak, rms) = (finite(outcome.wav.samplePeakDBFS), finite(outcome.wav.rmsDBFS))
            result.mode = "limited"
            (result.integratedLUFS, result.truePeakDBTP) = (finite(outcome.mp3.integratedLUFS), finite(outcome.mp3.truePeakDBTP))
            result.sourceLUFS = finite(measured?.integratedLUFS)
            result.sourceSamplePeakDBFS = finite(outcome.sourceSamplePeakDBFS)
            result.acx = .init(targetRMSDBFS: levels.targetRMSDBFS, rmsRange: [levels.rmsRange.lowerBound, levels.rmsRange.upperBound],
                               peakCeilingDB: levels.peakCeilingDB, noiseFloorCeilingDBFS: levels.noiseFloorCeilingDBFS,
                               roomToneDBFS: levels.roomTone.levelDBFS,
                               headRange: [levels.headRange.lowerBound, levels.headRange.upperBound],
                               tailRange: [levels.tailRange.lowerBound, levels.tailRange.upperBound],
                               mp3BitRateKbps: levels.mp3BitRateKbps, sampleRate: levels.sampleRate,
                               rmsDBFS: finite(outcome.mp3.rmsDBFS), samplePeakDBFS: finite(outcome.mp3.samplePeakDBFS),
                               truePeakDBTP: finite(outcome.mp3.truePeakDBTP), noiseFloorDBFS: finite(outcome.mp3.noiseFloorDBFS),
                               headSeconds: outcome.mp3.headSeconds, tailSeconds: outcome.mp3.tailSeconds,
                               gainDB: outcome.gainDB, limitDB: outcome.limitDB, encodes: outcome.encodes, problems: outcome.problems)
            return (result, .success(record))
        } catch {
            result.reason = "\(error)"
            return (result, .failure(error))
        }
    }

    /// How many frames at the start (or the end) of a line's 16-bit audio are quiet: under 45 dB
    /// below the line's own peak, which is where the master's ear (10 ms over −50 dBFS) puts a
    /// word's edge once the loudest lines peak near −4 dBFS. Other encodings: none.
    static func quietFrames(_ body: Data, format: WAVFormat, atEnd: Bool) -> Int {
        guard format.encoding == .integer, format.bitsPerSample == 16, format.channels > 0 else { return 0 }
        return body.withUnsafeBytes { raw -> Int in
            let channels = format.channels
            let frames = raw.count / 2 / channels
            func magnitude(_ frame: Int) -> Int32 {
                var loudest: Int32 = 0
                for channel in 0..<channels {
                    let at = (frame * channels + channel) * 2
                    loudest = max(loudest, abs(Int32(Int16(littleEndian: raw.loadUnaligned(fromByteOffset: at, as: Int16.self)))))
                }
                return loudest
            }
            var peak: Int32 = 0
            for frame in 0..<frames { peak = max(peak, magnitude(frame)) }
            let threshold = max(Int32((Double(peak) * pow(10, -45.0 / 20)).rounded(.up)), 1)
            var quiet = 0
            while quiet < frames, magnitude(atEnd ? frames - 1 - quiet : quiet) < threshold { quiet += 1 }
            return quiet
        }
    }

    /// Encodes the normalized WAV into each of `formats` (a temporary file beside it, swapped in
    /// atomically). A format that fails is reported, never fails the assembly.
    private func encode(_ audio: AssetRecord, formats: [AudioFileFormat], spoken: Bool, tags: AudioTags,
                        folder: AssetFolder) -> ([AssetRecord], [String]) {
        var records: [AssetRecord] = [], errors: [String] = []
        for format in formats where format != .wav {
            guard spoken else { errors.append("\(format.rawValue): no spoken line"); continue }
            guard let ffmpeg else { errors.append("\(format.rawValue): ffmpeg not found (install ffmpeg, or set REPARTO_FFMPEG)"); continue }
            var temporary: String?
            do {
                let name = "table-read.\(format.rawValue)"
                let path = try folder.path(of: name)
                let scratch = try store.temporaryPathBlocking(beside: path)
                temporary = scratch
                try AudioEncoder(ffmpeg: ffmpeg).encode(try store.absolutePath(audio.path), to: scratch, format: format, tags: tags)
                let record = try store.replaceBlocking(path, with: scratch, mimeType: format.mimeType)
                try folder.updateMetadataBlocking { $0.files[name] = record }
                records.append(record)
            } catch {
                if let temporary { try? FileManager.default.removeItem(atPath: temporary) }
                errors.append("\(format.rawValue): \(error)")
            }
        }
        return (records, errors)
    }

    /// A player's chapters: the scenes when the script has more than one, else the chapters.
    static func tagChapters(_ list: TableReadChapters) -> [AudioTags.Chapter] {
        let scenes = list.chapters.flatMap(\.scenes)
        if scenes.count > 1 { return scenes.map { .init(title: $0.heading, start: $0.start, end: $0.end) } }
        return list.chapters.map { .init(title: $0.title, start: $0.start, end: $0.end) }
    }

    /// The PCM bytes of a WAV file in `target`'s format (resampled when only the rate differs).
    static func pcmBody(of data: Data, convertingTo target: WAVFormat?) throws -> (Data, WAVFormat) {
        let header = try WAVHeader(parsing: data)
        let start = data.startIndex + header.dataOffset
        let body = data[start..<(start + header.dataLength - header.dataLength % max(header.format.blockAlign, 1))]
        guard let target, target != header.format else { return (Data(body), header.format) }
        let audio = try PCMAudio(wav: data)
        guard audio.channels == target.channels else {
            throw SpeechError.formatMismatch(reason: "\(header.format) cannot join \(target)")
        }
        let converted = audio.resampled(to: target.sampleRate).wavData(encoding: target.encoding)
        let convertedHeader = try WAVHeader(parsing: converted)
        guard convertedHeader.format == target else {
            throw SpeechError.formatMismatch(reason: "\(header.format) cannot join \(target)")
        }
        let from = converted.startIndex + convertedHeader.dataOffset
        return (Data(converted[from..<(from + convertedHeader.dataLength)]), target)
    }

    static func appendSilence(frames: Int, format: WAVFormat, to writer: AssetStreamWriter) throws {
        var remaining = frames * format.blockAlign
        let chunk = Data(count: min(max(remaining, 0), 1 << 20))
        while remaining > 0 {
            let n = min(remaining, chunk.count)
            try writer.append(n == chunk.count ? chunk : chunk.prefix(n))
            remaining -= n
        }
    }

    /// Chapters and scenes as placed in the audio. A chapter's title is its first section
    /// heading line, else "Opening" for the part before the first chapter, else "Chapter N".
    static func chapters(_ cues: [TableReadTimeline.Cue], titles: [Int: String], headings: [Int: String]) -> TableReadChapters {
        var chapters: [TableReadChapters.Chapter] = []
        for span in TableReadTimeline.spans(of: cues, key: { $0.chapterIndex }) {
            let inChapter = cues.filter { $0.line.chapterIndex == span.index }
            let title = titles[span.index]
            let scenes = TableReadTimeline.spans(of: inChapter, key: { $0.sceneIndex }).map {
                TableReadChapters.Scene(index: $0.index, heading: headings[$0.index] ?? "Scene \($0.index)", start: $0.start, end: $0.end)
            }
            chapters.append(.init(index: span.index, title: title ?? (span.index == 0 ? "Opening" : "Chapter \(span.index)"),
                                  start: span.start, end: span.end, scenes: scenes))
        }
        return TableReadChapters(chapters: chapters)
    }

    /// The first section heading of each chapter.
    static func chapterTitles(_ lines: [AssemblyLine]) -> [Int: String] {
        var titles: [Int: String] = [:]
        for item in lines where item.line.elementType == "sectionHeading" && titles[item.line.chapterIndex] == nil {
            titles[item.line.chapterIndex] = item.line.text
        }
        return titles
    }

    static func json<T: Encodable>(_ value: T) throws -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        return try encoder.encode(value)
    }
}

