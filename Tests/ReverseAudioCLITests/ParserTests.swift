import Foundation
import ReverseAudio
import ReverseAudioCommandLine
import Testing

/// The text the tool reads, parsed without running it: time values (issue 19 item 1), plans
/// (item 8) and event scripts.
@Suite struct ParserTests {
    @Test("times: every form, strictly", arguments: [
        ("12.5", TimePosition.seconds(12.5)), ("1:02.5", .seconds(62.5)), ("1:00:00", .seconds(3600)), ("66150s", .frames(66150)),
        (" 3 ", .seconds(3)), (".5", .seconds(0.5)), ("5.", .seconds(5)), ("1e3", .seconds(1000)), ("1000000", .seconds(1_000_000)),
        ("1000000000000s", .frames(1_000_000_000_000)), ("90:00", .seconds(5400)),
    ])
    func times(_ text: String, _ expected: TimePosition) throws {
        #expect(try TimePosition(parsing: text) == expected)
    }

    @Test("times: refused with the reason; a NUL never ends a number early", arguments: [
        ("1\u{0}junk", "control character (\\0)"), ("1e15", "1000000 s (277:46:40)"), ("1000001", "longest time accepted"),
        ("1000000000001s", "1000000000000s"), ("99999999999999999999s", "1000000000000s"), ("-1", "negative"), ("+1", "not a time"),
        ("inf", "not a time"), ("nan", "not a time"), ("0x10", "not a time"), ("1:60", "less than 60"), ("1:2:3:4", "not a time"),
        ("", "not a time"), ("1e", "not a time"), ("1.2.3", "not a time"), ("١٢", "not a time"), ("1e999", "longest time accepted"),
        ("5 s", "not a frame count"), ("1:e5", "not a time"),
    ])
    func refusedTimes(_ text: String, _ reason: String) {
        #expect(throws: TimePosition.ParseError.self) { try TimePosition(parsing: text) }
        do {
            _ = try TimePosition(parsing: text)
        } catch {
            #expect(error.description.contains(reason), "\(text.debugDescription): \(error)")
        }
        #expect(TimePosition(text) == nil)
    }

    @Test("a frame never traps: saturated, whatever the value and the rate")
    func saturation() throws {
        for value in [TimePosition.seconds(1e300), .seconds(-1e300), .seconds(.nan), .seconds(.infinity), .frames(.max), .frames(.min)] {
            for rate in [1, 44100, Int(Int32.max), Int.max] {
                let frame = value.frame(atRate: rate)
                #expect(abs(frame) <= TimePosition.saturatedFrame)
            }
        }
        let range = try TimeRange(start: .seconds(1e300), duration: .seconds(1e300))
        #expect(try range.frames(atRate: 48000).upperBound == 2 * TimePosition.saturatedFrame)
    }

    @Test("silence is at most 24 hours in seconds; times at most 1000000 s")
    func optionLimits() throws {
        #expect(try TimeValue.silence("86400") == .seconds(86400))
        #expect(throws: TimeValue.Invalid.self) { try TimeValue.silence("86400.5") }
        #expect(throws: TimeValue.Invalid.self) { try TimeValue.position("1e15") }
        do {
            _ = try TimeValue.silence("100000000")
        } catch {
            #expect("\(error)" == "more than the longest silence, 86400 s (24:00:00)")
        }
    }

    static let folder = URL(fileURLWithPath: "/plans", isDirectory: true)

    @Test("plans: quoted names hold anything but a line break; a doubled quote is a quote; # outside quotes comments")
    func planQuotes() throws {
        let text = "\"take #1.wav\" 1 2 # cut\n\"say \"\"hi\"\".wav\"\treverse\r\n\"silence\"\nsilence 0.5\nname\" with \"space.wav\n"
        let pieces = try PlanParser.parse(text, relativeTo: Self.folder, name: "p")
        #expect(pieces == [
            .file(Self.folder.appendingPathComponent("take #1.wav"), range: try TimeRange(start: .seconds(1), end: .seconds(2))),
            .file(Self.folder.appendingPathComponent("say \"hi\".wav"), reversed: true),
            .file(Self.folder.appendingPathComponent("silence")),
            .silence(.seconds(0.5)),
            .file(Self.folder.appendingPathComponent("name with space.wav")),
        ])
    }

    @Test("plans: control characters, open quotes and limits are errors naming the line", arguments: [
        ("a.wav 1\u{0}junk\n", "p, line 1: a control character (\\0)"), ("ok.wav\nb\u{1B}.wav\n", "p, line 2: a control character (\\x1B)"),
        ("a.wav\rb.wav\n", "line 1: a control character (\\r)"), ("\"a.wav 0 1\n", "line 1: a quote is not closed"),
        ("silence 1e15\n", "line 1: silence '1e15' is more than the longest silence, 86400 s"),
        ("a.wav 0 1e15\n", "line 1: '1e15' is more than the longest time accepted"), ("\"\" 0 1\n", "line 1: an empty file name"),
        ("# nothing\n", "p: the plan has no pieces"),
    ])
    func planErrors(_ text: String, _ message: String) {
        do {
            _ = try PlanParser.parse(text, relativeTo: Self.folder, name: "p")
            Issue.record("\(text.debugDescription) parsed")
        } catch {
            #expect(error is CommandLineError)
            #expect("\(error)".contains(message), "\(text.debugDescription): \(error)")
        }
    }

    @Test("events: times with colons, limits and control characters")
    func events() throws {
        let parsed = try PlaybackScript.parse("1:02.5:seek=1:00; 2:loop=1-2 ;3s:stop", sampleRate: 100)
        #expect(parsed.map(\.frame) == [6250, 200, 3])
        #expect(parsed.map(\.command) == [.seek(toFrame: 6000), .loop(100..<200), .stop])
        for (text, message) in [("1:seek=1e15", "'1e15' is more than the longest time accepted"), ("1e15:stop", "'1e15' is more than"),
                                ("1:seek=1\u{0}", "a control character (\\0)"), ("1:fly", "write AT:ACTION"), ("1:loop=2-1", "before its end")] {
            do {
                _ = try PlaybackScript.parse(text, sampleRate: 48000)
                Issue.record("\(text.debugDescription) parsed")
            } catch {
                #expect("\(error)".contains(message), "\(text.debugDescription): \(error)")
            }
        }
    }
}
