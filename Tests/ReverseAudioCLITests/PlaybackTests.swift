import Foundation
import Testing
import TestSupport

/// `play --to-file`: what the device would receive, checked frame by frame against the playback
/// semantics applied to the ffmpeg CLI's forward decode.
@Suite(.runsProcesses) struct PlaybackTests {
    /// A command on the output timeline: at frame `at`, `action` (with a frame or a region).
    typealias Event = (at: Int, action: String, value: Range<Int>?)

    /// The reference model of the semantics: frames of `decode` (interleaved, `channels`) that a
    /// playback emits, given events on the output timeline.
    static func predict(_ decode: [Int16], channels: Int, reverse: Bool, from: Int? = nil, loop: Range<Int>? = nil,
                        events: [Event], limit: Int?) -> [Int16] {
        let count = decode.count / channels
        var position = from ?? (reverse ? count : 0)
        var backwards = reverse
        var region = loop
        var output: [Int16] = []
        var rendered = 0
        var pending = events.sorted { $0.at < $1.at }
        while limit.map({ rendered < $0 }) ?? true {
            while let event = pending.first, event.at <= rendered {
                pending.removeFirst()
                switch event.action {
                case "reverse": backwards = true
                case "forward": backwards = false
                case "toggle": backwards.toggle()
                case "seek": position = min(max(event.value!.lowerBound, 0), count)
                case "loop": region = event.value
                case "noloop": region = nil
                default: break
                }
            }
            if let region {
                if !backwards && position >= region.upperBound { position = region.lowerBound }
                if backwards && position <= region.lowerBound { position = region.upperBound }
            }
            let frame: Int
            if backwards {
                guard position > 0 else { break }
                position -= 1
                frame = position
            } else {
                guard position < count else { break }
                frame = position
                position += 1
            }
            output += decode[(frame * channels)..<((frame + 1) * channels)]
            rendered += 1
        }
        return output
    }

    /// The `--events` option that performs `events`.
    static func script(_ events: [Event]) -> String {
        events.map { event -> String in
            switch event.action {
            case "seek": return "\(event.at)s:seek=\(event.value!.lowerBound)s"
            case "loop": return "\(event.at)s:loop=\(event.value!.lowerBound)s-\(event.value!.upperBound)s"
            default: return "\(event.at)s:\(event.action)"
            }
        }.joined(separator: ";")
    }

    static func play(_ input: URL, _ options: [String]) async throws -> [Int16] {
        let directory = try TemporaryDirectory()
        let output = directory.file("played.wav")
        let result = try await CLI.run(["play", input.path, "--to-file", output.path] + options)
        try #require(result.status == 0, "\(result.errorText)")
        return try await FFmpegOracle.samples(of: output)
    }

    /// Every fixture that decodes to the length it states (the wrong-length ones play their
    /// stated length, padded or cut, so no decode predicts them).
    static var fixtures: [String] {
        Fixtures.decodable.filter { !$0.hasPrefix("edge-wrong") && !$0.hasPrefix("edge-empty") }
    }

    /// `played` equals `expected`: bit-exact, or for AAC (whose fixtures use noise substitution,
    /// which draws from a generator only a continuous decode has, so a chunk decoded after a seek
    /// differs in the noise bands) the same length and positions, as the range tests accept.
    static func expectMatch(_ played: [Int16], _ expected: [Int16], _ name: String, _ what: String,
                            sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(played.count == expected.count, "\(name) \(what): \(played.count) vs \(expected.count) samples",
                sourceLocation: sourceLocation)
        if name.contains("aac") {
            let worst = zip(played, expected).map { abs(Int($0) - Int($1)) }.max() ?? 0
            #expect(worst <= 1000, "\(name) \(what): off by up to \(worst)", sourceLocation: sourceLocation)
        } else {
            #expect(played == expected, "\(name) \(what)", sourceLocation: sourceLocation)
        }
    }

    @Test("a whole-file reverse play equals areverse, bit for bit (AAC too: its first chunks come from one decode from frame 0)",
          arguments: fixtures)
    func reversePlay(_ name: String) async throws {
        let input = Fixtures.url(name)
        #expect(try await Self.play(input, ["--reverse"]) == FFmpegOracle.reversedSamples(of: input), "\(name)")
    }

    @Test("toggles, seeks and loops in both directions equal the semantics applied to the forward decode", arguments: fixtures)
    func scripted(_ name: String) async throws {
        let input = Fixtures.url(name)
        let decode = try await FFmpegOracle.samples(of: input)
        let channels = try await FFmpegOracle.probe(input).stream["channels"] as? Int ?? 1
        let n = decode.count / channels
        guard n > 20 else { return }
        let (a, b) = (n / 10, n / 4)
        let events: [Event] = [
            (n / 8, "toggle", nil), (n / 5, "toggle", nil), (n / 3, "seek", (n / 2)..<(n / 2)),
            (n / 2, "loop", a..<b), (n / 2 + 3 * (b - a) + 17, "reverse", nil), (2 * n, "noloop", nil),
        ]
        let script = Self.script(events)
        let limit = 3 * n
        let played = try await Self.play(input, ["--events", script, "--duration", "\(limit)s"])
        Self.expectMatch(played, Self.predict(decode, channels: channels, reverse: false, events: events, limit: limit), name,
                         "toggles, seeks, loops")
        let looped = try await Self.play(input, ["--reverse", "--loop-start", "\(a)s", "--loop-end", "\(b)s", "--duration", "\(5 * (b - a) + 3)s"])
        Self.expectMatch(looped, Self.predict(decode, channels: channels, reverse: true, loop: a..<b, events: [], limit: 5 * (b - a) + 3),
                         name, "a loop backwards")
        // Many wraps both ways: a short loop forward from before it, then backwards from past its end.
        let (c, d) = (n / 3, n / 3 + max(n / 50, 3))
        let wraps = 40 * (d - c) + 11
        let many = [(0, "loop", c..<d), (wraps, "reverse", nil), (wraps + 1, "seek", (n - 1)..<(n - 1))] as [Event]
        let manyPlayed = try await Self.play(input, ["--events", "0s:loop=\(c)s-\(d)s;\(wraps)s:reverse;\(wraps + 1)s:seek=\(n - 1)s",
                                               "--duration", "\(2 * wraps)s"])
        Self.expectMatch(manyPlayed, Self.predict(decode, channels: channels, reverse: false, events: many, limit: 2 * wraps),
                         name, "forty wraps forward, then backwards")
    }

    @Test("AAC without noise substitution plays exactly: reversed, toggles, seeks and loops across chunks")
    func aacWithoutNoise() async throws {
        let directory = try TemporaryDirectory()
        let input = try await SignalFiles.make("clean.m4a", seconds: 20, in: directory.url, codecArguments: ["-c:a", "aac", "-aac_pns", "0"])
        let decode = try await FFmpegOracle.samples(of: input)
        #expect(try await Self.play(input, ["--reverse"]) == FFmpegOracle.reversedSamples(of: input))
        let n = decode.count / 2
        let events: [Event] = [
            (40_000, "toggle", nil), (90_000, "seek", 600_000..<600_000), (150_000, "loop", 300_000..<333_333),
            (400_000, "reverse", nil), (700_000, "noloop", nil), (720_000, "seek", (n - 10)..<(n - 10)), (760_000, "forward", nil),
        ]
        let script = Self.script(events)
        let played = try await Self.play(input, ["--from", "\(n / 2)s", "--events", script, "--duration", "800000s"])
        #expect(played == Self.predict(decode, channels: 2, reverse: false, from: n / 2, events: events, limit: 800_000))
    }

    @Test("1,000 random events on a 10-minute VBR -q:a 9 MP3 are exact")
    func randomEvents() async throws {
        let directory = try TemporaryDirectory()
        let input = try await SignalFiles.make("long.mp3", seconds: 600, in: directory.url, codecArguments: ["-c:a", "libmp3lame", "-q:a", "9"])
        let decode = try await FFmpegOracle.samples(of: input)
        let n = decode.count / 2
        var generator = SplitMix(seed: 2026)
        var at = 0
        var events: [Event] = []
        for _ in 0..<1000 {
            at += 1 + Int(generator.next() % 4000)
            switch generator.next() % 6 {
            case 0: events.append((at, "toggle", nil))
            case 1: events.append((at, "reverse", nil))
            case 2: events.append((at, "forward", nil))
            case 3:
                let target = Int(generator.next() % UInt64(n))
                events.append((at, "seek", target..<target))
            case 4:
                let start = Int(generator.next() % UInt64(n - 10_000))
                events.append((at, "loop", start..<(start + 1 + Int(generator.next() % 9000))))
            default: events.append((at, "noloop", nil))
            }
        }
        let script = Self.script(events)
        let limit = at + 5000
        let played = try await Self.play(input, ["--from", "\(n / 2)s", "--events", script, "--duration", "\(limit)s"])
        let expected = Self.predict(decode, channels: 2, reverse: false, from: n / 2, events: events, limit: limit)
        #expect(played.count == expected.count)
        #expect(played == expected)
    }

    @Test("bad playback options: a marker past the end, a backwards loop, a bad event: one-line errors")
    func badOptions() async throws {
        let input = Fixtures.url("flac-s16-2ch-44100.flac").path
        for options in [["--loop-start", "0.2", "--loop-end", "0.1", "--to-file", "/tmp/x.wav"], ["--from", "10", "--to-file", "/tmp/x.wav"],
                        ["--events", "1s:jump", "--to-file", "/tmp/x.wav"]] {
            let result = try await CLI.run(["play", input] + options)
            #expect(result.status != 0 && result.errorLines.first?.hasPrefix("reverse-audio: error: ") == true, "\(options): \(result.errorText)")
        }
    }
}
