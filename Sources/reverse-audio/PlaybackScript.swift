import ReverseAudio

/// A scripted playback (`--events`): `AT:ACTION;…`, where AT is a time on the output timeline
/// (frames rendered so far) and ACTION is `reverse`, `forward`, `toggle`, `seek=TIME`,
/// `loop=TIME-TIME`, `noloop`, `pause`, `play` or `stop`. Times take every ``TimePosition`` form.
enum PlaybackScript {
    /// The commands of `text`, each with the output frame it applies before, at `sampleRate`.
    /// - Throws: ``CommandLineError`` naming the bad event.
    static func parse(_ text: String, sampleRate: Int) throws -> [(frame: Int64, command: PlaybackCommand)] {
        let events = text.split(separator: ";").map { String($0).trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
        return try events.map { try parseEvent($0, sampleRate: sampleRate) }
    }

    /// One `AT:ACTION` event.
    private static func parseEvent(_ event: String, sampleRate: Int) throws -> (frame: Int64, command: PlaybackCommand) {
            func fail(_ reason: String) -> CommandLineError { CommandLineError("event '\(event)': \(reason)") }
            // Times may hold colons themselves (1:02.5:seek=1:00): split where a time ends and an action begins.
            let actions = ["reverse", "forward", "toggle", "noloop", "pause", "play", "stop", "seek", "loop"]
            let split = event.indices.filter { event[$0] == ":" }.first { colon in
                let head = event[event.index(after: colon)...].split(separator: "=", maxSplits: 1).first.map(String.init) ?? ""
                return TimePosition(String(event[..<colon])) != nil && actions.contains(head)
            }
            guard let colon = split, let time = TimePosition(String(event[..<colon])) else { throw fail("write AT:ACTION, AT a time") }
            let action = String(event[event.index(after: colon)...])
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
                if action.hasPrefix("seek="), let target = TimePosition(String(action.dropFirst(5))) {
                    command = .seek(toFrame: target.frame(atRate: sampleRate))
                } else if action.hasPrefix("loop=") {
                    let ends = action.dropFirst(5).split(separator: "-").map { TimePosition(String($0)) }
                    guard ends.count == 2, let start = ends[0], let end = ends[1] else { throw fail("write loop=START-END") }
                    let lower = start.frame(atRate: sampleRate)
                    let upper = end.frame(atRate: sampleRate)
                    guard lower < upper else { throw fail("the loop's start must come before its end") }
                    command = .loop(lower..<upper)
                } else {
                    throw fail("unknown action '\(action)' (reverse, forward, toggle, seek=TIME, loop=TIME-TIME, noloop, pause, play, stop)")
                }
            }
            return (time.frame(atRate: sampleRate), command)
    }
}
