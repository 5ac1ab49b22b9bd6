import Foundation
import ReverseAudioCore

/// A scripted playback (`--events`): `AT:ACTION;…`, where AT is a time on the output timeline
/// (frames rendered so far) and ACTION is `reverse`, `forward`, `toggle`, `seek=TIME`,
/// `loop=TIME-TIME`, `noloop`, `pause`, `play` or `stop`. Times take every ``TimePosition``
/// form, read strictly and within its limits; a control character anywhere is an error.
public enum PlaybackScript {
    /// The actions, in the order the help lists them.
    package static let actions = ["reverse", "forward", "toggle", "seek", "loop", "noloop", "pause", "play", "stop"]
    /// The actions as they are written, for help and messages: "reverse, forward, …, seek=TIME,
    /// loop=TIME-TIME, … or stop".
    package static let actionForms: String = {
        let forms = actions.map { $0 == "seek" ? "seek=TIME" : ($0 == "loop" ? "loop=TIME-TIME" : $0) }
        return forms.dropLast().joined(separator: ", ") + " or " + (forms.last ?? "")
    }()

    /// The commands of `text`, each with the output frame it applies before, at `sampleRate`.
    /// - Throws: ``CommandLineError`` naming the bad event.
    public static func parse(_ text: String, sampleRate: Int) throws -> [(frame: Int64, command: PlaybackCommand)] {
        if let control = text.unicodeScalars.first(where: { $0.value < 0x20 || (0x7F...0x9F).contains($0.value) }) {
            throw CommandLineError("a control character (\(ControlEscaping.escaped(String(control)))) has no place in an event list")
        }
        let events = text.split(separator: ";").map { String($0).trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
        return try events.map { try parseEvent($0, sampleRate: sampleRate) }
    }

    /// One `AT:ACTION` event.
    private static func parseEvent(_ event: String, sampleRate: Int) throws -> (frame: Int64, command: PlaybackCommand) {
        func fail(_ reason: String) -> CommandLineError { CommandLineError("event '\(event)': \(reason)") }
        func time(_ text: Substring) throws -> TimePosition {
            do {
                return try TimePosition(parsing: String(text))
            } catch {
                throw fail("\(error)")
            }
        }
        // Times may hold colons themselves (1:02.5:seek=1:00): the action starts after the
        // first colon that an action's name follows.
        let split = event.indices.filter { event[$0] == ":" }.first { colon in
            let head = event[event.index(after: colon)...].split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false).first ?? ""
            return actions.contains(String(head))
        }
        guard let colon = split else {
            throw fail("write AT:ACTION, AT a time and ACTION one of \(actionForms)")
        }
        let at = try time(event[..<colon])
        let action = event[event.index(after: colon)...]
        let command: PlaybackCommand
        switch action {
        case "reverse": command = .setDirection(.reverse)
        case "forward": command = .setDirection(.forward)
        case "toggle": command = .toggleDirection
        case "noloop": command = .loop(nil)
        case "pause": command = .pause
        case "play": command = .play
        case "stop": command = .stop
        default:
            if action.hasPrefix("seek=") {
                command = .seek(toFrame: try time(action.dropFirst(5)).frame(atRate: sampleRate))
            } else if action.hasPrefix("loop=") {
                let ends = action.dropFirst(5).split(separator: "-", omittingEmptySubsequences: false)
                guard ends.count == 2 else { throw fail("write loop=START-END") }
                let lower = try time(ends[0]).frame(atRate: sampleRate)
                let upper = try time(ends[1]).frame(atRate: sampleRate)
                guard lower < upper else { throw fail("the loop's start must come before its end") }
                command = .loop(lower..<upper)
            } else {
                throw fail("unknown action '\(action)' (reverse, forward, toggle, seek=TIME, loop=TIME-TIME, noloop, pause, play, stop)")
            }
        }
        return (at.frame(atRate: sampleRate), command)
    }
}
