import Foundation
import RepartoRuntime
import Synchronization
import TextEscaping

/// Prints a production's progress per stage: on a terminal, one redrawn bar per stage; otherwise
/// a line when a stage starts or finishes and at most one line a second in between.
public final class StageProgressView: Sendable {
    private struct State {
        var drawnLines = 0
        var lastLine = ""
        var lastPrint = ContinuousClock.now - .seconds(10)
        /// When each stage was first seen, with its done count then (for rate and ETA).
        var firstSeen: [String: (ContinuousClock.Instant, Int)] = [:]
        var finishedStages: Set<String> = []
    }
    private let state = Mutex(State())
    private let interactive: Bool
    private let stageOrder: [String]

    /// `stageOrder` lists the plan's stages, so stages that have not started show as waiting.
    public init(stageOrder: [String] = [], interactive: Bool = isatty(STDOUT_FILENO) == 1) {
        self.stageOrder = stageOrder
        self.interactive = interactive
    }

    public func show(_ progress: ProductionProgress) {
        let now = ContinuousClock.now
        state.withLock { state in
            var lines: [String] = []
            var changedStage = false
            let known = progress.stages.map(\.stage)
            let names = known + stageOrder.filter { !known.contains($0) }
            for name in names {
                guard let stage = progress.stages.first(where: { $0.stage == name }) else {
                    lines.append(Self.pad(name) + " [" + String(repeating: "·", count: 24) + "] waiting")
                    continue
                }
                if state.firstSeen[name] == nil { state.firstSeen[name] = (now, stage.done); changedStage = true }
                let finished = stage.done == stage.total
                if finished, state.finishedStages.insert(name).inserted { changedStage = true }
                var line = Self.pad(name) + " " + Self.bar(done: stage.done, total: stage.total) + " \(stage.done)/\(stage.total)"
                if stage.failed > 0 { line += ", \(stage.failed) failed" }
                if stage.cancelled > 0 { line += ", \(stage.cancelled) cancelled" }
                if !finished, let (since, doneThen) = state.firstSeen[name] {
                    let elapsed = (now - since) / .seconds(1)
                    let rate = elapsed > 0.5 ? Double(stage.done - doneThen) / elapsed : 0
                    if rate > 0 {
                        line += String(format: ", %.1f/s, ETA %.0f s", rate, Double(stage.total - stage.done) / rate)
                    }
                }
                lines.append(line)
            }
            if progress.isFinished { lines.append("production \(progress.state.replacingOccurrences(of: "_", with: " "))") }
            lines = lines.map(TerminalSafe.clean)

            if interactive {
                var out = ""
                if state.drawnLines > 0 { out += "\u{1B}[\(state.drawnLines)A" }
                for line in lines { out += "\u{1B}[2K" + line + "\n" }
                state.drawnLines = lines.count
                print(out, terminator: "")
                fflush(nil)
                return
            }
            // Not a terminal: one summary line, when something important changed or a second passed.
            let summary = lines.filter { !$0.hasSuffix("waiting") }.last ?? ""
            guard summary != state.lastLine else { return }
            guard changedStage || progress.isFinished || now - state.lastPrint >= .seconds(1) else { return }
            state.lastLine = summary
            state.lastPrint = now
            print(summary)
            if progress.isFinished, let last = lines.last, last != summary { print(last) }
            fflush(nil)
        }
    }

    private static func pad(_ name: String) -> String {
        name.count >= 9 ? name : name + String(repeating: " ", count: 9 - name.count)
    }

    private static func bar(done: Int, total: Int, width: Int = 24) -> String {
        let filled = total == 0 ? 0 : min(width, done * width / total)
        return "[" + String(repeating: "#", count: filled) + String(repeating: "-", count: width - filled) + "]"
    }
}
