import SpeechJobs
import Foundation
import Speech

/// The part of a script a table read speaks: some scenes, some characters, or both.
///
/// - ``scenes``: the lines of those scenes (1-based, as `reparto results` numbers them); lines
///   before the first scene heading are left out.
/// - ``characters``: each of their lines and the line spoken just before it (the cue an actor
///   listens for); a run of their own lines needs only one cue.
/// - Both: the characters' lines within those scenes.
///
/// A scoped read keeps every line's content key, so it reuses audio any earlier read generated and
/// a later full read reuses the scoped one's.
public struct TableReadScope: Codable, Sendable, Hashable, CustomStringConvertible {
    /// Inclusive 1-based scene ranges; nil: every scene.
    public var scenes: [SceneRange]?
    /// Normalized character names (``CastingDirector/normalize(_:)``); nil: every speaker.
    public var characters: [String]?

    public init(scenes: [SceneRange]? = nil, characters: [String]? = nil) {
        self.scenes = scenes
        self.characters = characters.map { $0.map(CastingDirector.normalize) }
    }

    /// A range of scenes, `first...last`.
    public struct SceneRange: Codable, Sendable, Hashable, CustomStringConvertible {
        public var first: Int
        public var last: Int

        public init(first: Int, last: Int) {
            self.first = first
            self.last = last
        }

        /// True when `scene` is in the range; a stored range whose `first` exceeds its `last` holds nothing.
        public func contains(_ scene: Int) -> Bool { first <= scene && scene <= last }
        public var description: String { first == last ? "\(first)" : "\(first)-\(last)" }
    }

    /// True when the scope selects everything.
    public var isWhole: Bool { scenes == nil && characters == nil }

    /// `scenes 3-7, characters ISOLDE, DEV`.
    public var description: String {
        var parts: [String] = []
        if let scenes { parts.append("scenes " + scenes.map(\.description).joined(separator: ",")) }
        if let characters { parts.append("characters " + characters.joined(separator: ", ")) }
        return parts.isEmpty ? "whole script" : parts.joined(separator: ", ")
    }

    /// Parses `3-7`, `2,5,9-11`: positive scene numbers, each range in order.
    /// - Throws: ``TableReadScopeError/invalidScenes(_:)``.
    public static func scenes(parsing text: String) throws(TableReadScopeError) -> [SceneRange] {
        let pieces = text.split(separator: ",", omittingEmptySubsequences: false).map { $0.trimmingCharacters(in: .whitespaces) }
        var ranges: [SceneRange] = []
        for piece in pieces {
            let bounds = piece.split(separator: "-", omittingEmptySubsequences: false).map(String.init)
            guard (1...2).contains(bounds.count), let first = Int(bounds[0]), let last = Int(bounds.last ?? ""),
                  first >= 1, last >= first else {
                throw .invalidScenes(text)
            }
            ranges.append(SceneRange(first: first, last: last))
        }
        return ranges
    }

    /// Parses `ISOLDE,DEV` into normalized names.
    /// - Throws: ``TableReadScopeError/invalidCharacters(_:)`` for an empty name.
    public static func characters(parsing text: String) throws(TableReadScopeError) -> [String] {
        let names = text.split(separator: ",", omittingEmptySubsequences: false).map { CastingDirector.normalize(String($0)) }
        guard !names.contains(where: \.isEmpty) else { throw .invalidCharacters(text) }
        return names
    }

    /// Checks the scope against a script with `sceneCount` scenes and the speakers `known`.
    /// - Throws: ``TableReadScopeError/noSuchScenes(_:sceneCount:)``,
    ///   ``TableReadScopeError/noSuchCharacters(_:known:)``.
    public func validate(sceneCount: Int, known: [String]) throws(TableReadScopeError) {
        if let scenes, let beyond = scenes.first(where: { $0.last > sceneCount }) {
            throw .noSuchScenes(beyond, sceneCount: sceneCount)
        }
        if let characters {
            let knownSet = Set(known)
            let unknown = characters.filter { !knownSet.contains($0) }
            guard unknown.isEmpty else { throw .noSuchCharacters(unknown, known: known) }
        }
    }

    /// The lines of `lines` (in script order) that the scope selects, in the same order.
    ///
    /// `scene` gives a line's 1-based scene (nil before the first heading), `speaker` its
    /// normalized speaker (`narrator` for the narrator).
    public func select<Line>(_ lines: [Line], scene: (Line) -> Int?, speaker: (Line) -> String) -> [Line] {
        var inScenes = lines
        if let scenes {
            inScenes = lines.filter { line in scene(line).map { index in scenes.contains { $0.contains(index) } } ?? false }
        }
        guard let characters else { return inScenes }
        let wanted = Set(characters)
        var keep = [Bool](repeating: false, count: inScenes.count)
        for (index, line) in inScenes.enumerated() where wanted.contains(speaker(line)) {
            keep[index] = true
            // The cue: the line before, unless it is in another scene.
            if index > 0, scene(inScenes[index - 1]) == scene(line) { keep[index - 1] = true }
        }
        return zip(inScenes, keep).filter(\.1).map(\.0)
    }
}

/// Why a scope cannot be used.
public enum TableReadScopeError: Error, Sendable, Equatable, CustomStringConvertible {
    case invalidScenes(String)
    case invalidCharacters(String)
    case noSuchScenes(TableReadScope.SceneRange, sceneCount: Int)
    case noSuchCharacters([String], known: [String])
    /// The scope is valid but no line of the script falls in it.
    case nothingSelected(TableReadScope)

    public var description: String {
        switch self {
        case .invalidScenes(let text):
            return "scenes '\(text)': expected scene numbers and ranges like 3-7 or 2,5,9-11 (from 1, each range in order)"
        case .invalidCharacters(let text):
            return "characters '\(text)': expected names separated by commas, like ISOLDE,DEV"
        case .noSuchScenes(let range, let count):
            return "scenes \(range): the script has \(count) scene\(count == 1 ? "" : "s")"
        case .noSuchCharacters(let names, let known):
            let list = known.prefix(12).joined(separator: ", ") + (known.count > 12 ? ", …" : "")
            return "no character named \(names.joined(separator: ", ")) speaks in the script (its characters: \(list.isEmpty ? "none" : list))"
        case .nothingSelected(let scope):
            return "\(scope) selects no speakable line"
        }
    }
}
