import Foundation
@testable import ReverseAudio
@testable import ReverseAudioBatch
@testable import ReverseAudioCLI
@testable import ReverseAudioCommandLine
import Testing

/// The text the tool reads besides its flags, parsed in process: time values in every spelling
/// and refusal, composition plans (effects, word counts, ranges), cue sheets and event scripts.
/// ParserTests holds the first cases; these extend them to the forms and errors it leaves out.
@Suite struct CommandLineTextTests {
    // MARK: Time values

    @Test("times: every [[hh:]mm:]ss[.fff] and Ns spelling reads as its value", arguments: [
        ("0", TimePosition.seconds(0)), ("0s", .frames(0)), ("59.999", .seconds(59.999)), ("1:00", .seconds(60)),
        ("1:2", .seconds(62)), ("0:0:1", .seconds(1)), ("01:02:03.5", .seconds(3723.5)), ("12:00:00", .seconds(43200)),
        ("277:46:40", .seconds(1_000_000)), ("1:59.5", .seconds(119.5)), ("1E2", .seconds(100)), ("1e+2", .seconds(100)),
        ("2.5e-1", .seconds(0.25)), ("  7s  ", .frames(7)), ("0000000000001s", .frames(1)), ("00000000000000000001s", .frames(1)),
        ("00000000000000000000s", .frames(0)),
    ])
    func acceptedTimes(_ text: String, _ expected: TimePosition) throws {
        #expect(try TimePosition(parsing: text) == expected)
        #expect(try TimeValue.position(text) == expected)
    }

    @Test("times: malformed clocks, frame counts and control characters are refused with the rule they break", arguments: [
        (":30", "is not a time: write seconds (12.5), [[hh:]mm:]ss[.fff] (1:02.5) or frames with an s suffix (66150s)"),
        ("1:", "is not a time"), ("1::2", "is not a time"), ("1:1e1", "is not a time"), ("1e1234567", "is not a time"),
        ("1234567890123:00", "is not a time"), (" ", "is not a time"),
        ("1:2:60", "has 60 in its seconds field: write less than 60 after a colon"),
        ("1:75.5", "has 75.5 in its seconds field: write less than 60 after a colon"),
        ("277:46:40.5", "is more than the longest time accepted, 1000000 s (277:46:40)"),
        ("12ss", "is not a frame count: write digits before the s (66150s)"), ("s", "is not a frame count"),
        ("1.5s", "is not a frame count"), ("\t1", "holds a control character (\\t)"), ("1\u{7F}", "holds a control character (\\x7F)"),
        ("-0", "is negative; it must be 0 or more (times count from 0)"),
    ])
    func refusedTimes(_ text: String, _ reason: String) {
        do {
            let parsed = try TimePosition(parsing: text)
            Issue.record("\(text.debugDescription) parsed as \(parsed)")
        } catch {
            #expect(error.reason.hasPrefix(reason), "\(text.debugDescription): \(error.reason)")
            #expect(error.description == "'\(error.text)' \(error.reason)")
        }
    }

    @Test("a refusal names the text escaped, and says whether only the limit was passed")
    func parseErrorParts() {
        do {
            _ = try TimePosition(parsing: "a\u{1B}")
            Issue.record("ESC parsed")
        } catch {
            #expect(error.text == "a\\x1B")
            #expect(error.description == "'a\\x1B' holds a control character (\\x1B); write \(TimePosition.forms)")
            #expect(!error.isPastLimit)
        }
        for (text, pastLimit) in [("1000001", true), ("1000000000001s", true), ("abc", false), ("-5", false), ("1:60", false)] {
            do {
                _ = try TimePosition(parsing: text)
                Issue.record("\(text) parsed")
            } catch {
                #expect(error.isPastLimit == pastLimit, "\(text): \(error)")
                #expect(error.text == text)
            }
        }
    }

    @Test("an option's value error is the reason alone, 'is' dropped, ready to follow the parser's words", arguments: [
        ("abc", "not a time: write seconds (12.5), [[hh:]mm:]ss[.fff] (1:02.5) or frames with an s suffix (66150s)"),
        ("-1", "negative; it must be 0 or more (times count from 0)"),
        ("12ss", "not a frame count: write digits before the s (66150s)"),
        ("1000001", "more than the longest time accepted, 1000000 s (277:46:40)"),
        ("1\t", "holds a control character (\\t); write seconds (12.5), [[hh:]mm:]ss[.fff] (1:02.5) or frames with an s suffix (66150s)"),
    ])
    func optionReasons(_ text: String, _ message: String) {
        do {
            _ = try TimeValue.position(text)
            Issue.record("\(text.debugDescription) parsed")
        } catch {
            #expect(error is TimeValue.Invalid)
            #expect("\(error)" == message)
        }
    }

    @Test("a silence is at most 24 hours in any clock form; its frame form is checked later against the rate")
    func silenceLimit() throws {
        #expect(try TimeValue.silence("24:00:00") == .seconds(86400))
        #expect(try TimeValue.silence("86400s") == .frames(86400))
        #expect(try TimeValue.silence("5000000s") == .frames(5_000_000))
        #expect(throws: TimeValue.Invalid.self) { try TimeValue.silence("24:00:00.5") }
        #expect(throws: TimeValue.Invalid.self) { try TimeValue.silence("-0.5") }
        // A position is allowed far more.
        #expect(try TimeValue.position("24:00:01") == .seconds(86401))
    }

    @Test("a time names a frame by rounding at the rate; a frame count ignores the rate; each reads back as written")
    func framesAndDescriptions() throws {
        #expect(try TimePosition(parsing: "0.5").frame(atRate: 3) == 2)
        #expect(try TimePosition(parsing: "1:00").frame(atRate: 44100) == 2_646_000)
        #expect(try TimePosition(parsing: "66150s").frame(atRate: 8000) == 66150)
        #expect(try TimePosition(parsing: "0.00001").frame(atRate: 48000) == 0)
        #expect(try TimePosition(parsing: "1:02.5").description == "62.500 s")
        #expect(try TimePosition(parsing: "66150s").description == "66150s")
    }

    // MARK: Plans

    static let folder = URL(fileURLWithPath: "/plans", isDirectory: true)

    static func plan(_ text: String, silenceLimit: Double = CompositionPiece.maximumSilenceSeconds) throws -> [CompositionPiece] {
        try PlanParser.parse(text, relativeTo: folder, name: "p", silenceLimit: silenceLimit)
    }

    @Test("plans: effects are the last words, gain first then the fades, in the shape given")
    func planEffects() throws {
        let pieces = try Self.plan("a.wav 1 2 reverse fade-out=1s gain=-6 fade-in=0.5 fade-shape=t\nb.wav gain=3.5\n")
        #expect(pieces == [
            .file(Self.folder.appendingPathComponent("a.wav"), range: try TimeRange(start: .seconds(1), end: .seconds(2)), reversed: true,
                  effects: [Gain(decibels: -6), Fade(.out, length: .frames(1), shape: .triangle), Fade(.in, length: .seconds(0.5), shape: .triangle)]),
            .file(Self.folder.appendingPathComponent("b.wav"), effects: [Gain(decibels: 3.5)]),
        ])
    }

    @Test("plans: blank lines, comments and CRLF count as lines; tabs separate; an absolute name is not under the folder")
    func planLayout() throws {
        let pieces = try Self.plan("\r\n# intro\r\n/abs/x.wav\t0.5\r\n\n  café.wav   1:00  \n")
        #expect(pieces == [
            .file(URL(fileURLWithPath: "/abs/x.wav"), range: try TimeRange(start: .seconds(0.5))),
            .file(Self.folder.appendingPathComponent("café.wav"), range: try TimeRange(start: .seconds(60))),
        ])
        do {
            _ = try Self.plan("\n\n# c\nbad.wav 1 2 3\n")
            Issue.record("four words parsed")
        } catch {
            #expect("\(error)" == "p, line 4: expected FILE [START] [END] [reverse] [EFFECT…], got 4 words")
        }
    }

    @Test("plans: a quoted 'reverse' or effect is a word to read as a time, not a keyword")
    func planQuotedKeywords() {
        for (text, message) in [("a.wav \"reverse\"\n", "p, line 1: 'reverse' is not a time"),
                                ("a.wav \"gain=3\"\n", "p, line 1: 'gain=3' is not a time")] {
            do {
                _ = try Self.plan(text)
                Issue.record("\(text.debugDescription) parsed")
            } catch {
                #expect(error is CommandLineError)
                #expect("\(error)".hasPrefix(message), "\(error)")
            }
        }
    }

    @Test("plans: each bad piece is a CommandLineError naming the line and what to write", arguments: [
        ("a.wav gain=x\n", "p, line 1: gain=x: a number of decibels from -200 to 200"),
        ("a.wav gain=201\n", "p, line 1: gain=201: a number of decibels from -200 to 200"),
        ("a.wav gain=nan\n", "p, line 1: gain=nan: a number of decibels from -200 to 200"),
        ("a.wav fade-shape=z\n", "p, line 1: fade-shape=z: one of t, q, h, l, p"),
        ("a.wav speed=2\n", "p, line 1: speed=…: not an effect (gain=DB, fade-in=T, fade-out=T, fade-shape=S)"),
        ("a.wav fade-in=-1\n", "p, line 1: fade-in=-1: '-1' is negative; it must be 0 or more (times count from 0)"),
        ("silence\n", "p, line 1: write silence DURATION, as in 'silence 0.5' or 'silence 22050s'"),
        ("silence 1 2\n", "p, line 1: write silence DURATION, as in 'silence 0.5' or 'silence 22050s'"),
        ("a.wav 2 1\n", "p, line 1: the end (1.000 s) must come after the start (2.000 s)"),
        ("ok.wav\na.wav 1 2 x y\n", "p, line 2: expected FILE [START] [END] [reverse] [EFFECT…], got 5 words"),
        ("", "p: the plan has no pieces"),
    ])
    func planErrors(_ text: String, _ message: String) {
        do {
            let pieces = try Self.plan(text)
            Issue.record("\(text.debugDescription) parsed as \(pieces)")
        } catch {
            #expect(error as? CommandLineError == CommandLineError(message), "\(error)")
        }
    }

    @Test("plans: the silence limit passed in is the one enforced and named")
    func planSilenceLimit() throws {
        #expect(try Self.plan("silence 10\n", silenceLimit: 10) == [.silence(.seconds(10))])
        do {
            _ = try Self.plan("silence 10.5\n", silenceLimit: 10)
            Issue.record("a silence past the limit parsed")
        } catch {
            #expect("\(error)" == "p, line 1: silence '10.5' is more than the longest silence, 10 s (0:00:10)")
        }
    }

    // MARK: Cue sheets

    static let sheet = """
        REM GENRE Ambient
        PERFORMER "The Band"
        TITLE "The Album"
        FILE "album.flac" WAVE
          TRACK 01 AUDIO
            TITLE "Opening"
            INDEX 01 00:00:00
          TRACK 02 AUDIO
            TITLE "Second Song"
            PERFORMER "Guest"
            FLAGS DCP
            INDEX 00 03:58:50
            INDEX 01 04:00:37
          TRACK 03 AUDIO
            TITLE Bare
            INDEX 01 100:00:74
        """

    @Test("cue sheet: album and tracks, INDEX 01 in CD frames of 1/75 s, INDEX 00 and unknown lines passed over")
    func cueSheet() throws {
        let sheet = try CueSheet(data: Data(Self.sheet.utf8))
        #expect(sheet.title == "The Album")
        #expect(sheet.performer == "The Band")
        #expect(sheet.warnings.isEmpty)
        #expect(sheet.tracks == [
            CueSheet.Track(number: 1, title: "Opening", performer: nil, start: 0),
            CueSheet.Track(number: 2, title: "Second Song", performer: "Guest", start: 240 + 37.0 / 75),
            CueSheet.Track(number: 3, title: "Bare", performer: nil, start: 6000 + 74.0 / 75),
        ])
    }

    @Test("cue sheet: a byte-order mark, CRLF and lowercase keywords read alike; Latin-1 and a missing FILE are warned of")
    func cueSheetEncodings() throws {
        let bom = Data([0xEF, 0xBB, 0xBF]) + Data("file \"a.wav\" WAVE\r\ntrack 1 audio\r\ntitle Intro\r\nindex 01 00:01:00\r\n".utf8)
        let read = try CueSheet(data: bom)
        #expect(read.tracks == [CueSheet.Track(number: 1, title: "Intro", performer: nil, start: 1)])
        #expect(read.warnings.isEmpty)
        let latin1 = Data("TITLE \"Caf".utf8) + Data([0xE9]) + Data("\"\nTRACK 1 AUDIO\nINDEX 01 00:00:00\n".utf8)
        let old = try CueSheet(data: latin1)
        #expect(old.title == "Café")
        #expect(old.warnings == ["the cue sheet is not UTF-8: read as Latin-1",
                                 "the cue sheet has no FILE line: its times are taken as the input's"])
    }

    @Test("cue sheet: what cannot be used is refused naming the line", arguments: [
        ("FILE a WAVE\nFILE b WAVE\n", "line 2: a second FILE: split takes a sheet of one audio file"),
        ("TRACK 1 AUDIO\nINDEX 01 00:00:00\nTRACK 2 AUDIO\nTITLE x\n", "track 2 (line 3) has no INDEX 01"),
        ("TRACK 1 AUDIO\nINDEX 01 01:00:00\nTRACK 2 AUDIO\nINDEX 01 00:30:00\n",
         "track 2 (line 3) starts at 0:30.000, not after track 1 (1:00.000): the tracks are out of order"),
        ("TRACK 1 AUDIO\nINDEX 01 00:05:00\nTRACK 2 AUDIO\nINDEX 01 00:05:00\n",
         "track 2 (line 3) starts at 0:05.000, not after track 1 (0:05.000): the tracks are out of order"),
        ("TRACK 1 AUDIO\nINDEX 01 1:2\n", "line 2: '1:2' is not a cue time (mm:ss:ff, 75 frames a second)"),
        ("TRACK 1 AUDIO\nINDEX 01 00:60:00\n", "line 2: '00:60:00' is not a cue time (mm:ss:ff, 75 frames a second)"),
        ("TRACK 1 AUDIO\nINDEX 01 00:00:75\n", "line 2: '00:00:75' is not a cue time (mm:ss:ff, 75 frames a second)"),
        ("TRACK 1 AUDIO\nINDEX 01 -1:00:00\n", "line 2: '-1:00:00' is not a cue time (mm:ss:ff, 75 frames a second)"),
        ("TRACK x AUDIO\n", "line 1: TRACK needs a number"), ("TRACK 0 AUDIO\n", "line 1: TRACK needs a number"),
        ("INDEX 01 00:00:00\n", "line 1: INDEX outside a track, or without a number and a time"),
        ("TRACK 1 AUDIO\nINDEX 01\n", "line 2: INDEX outside a track, or without a number and a time"),
        ("REM nothing\n", "no TRACK with an INDEX 01"), ("", "no TRACK with an INDEX 01"),
    ])
    func cueSheetErrors(_ text: String, _ message: String) {
        do {
            let sheet = try CueSheet(data: Data(text.utf8))
            Issue.record("\(text.debugDescription) read as \(sheet)")
        } catch {
            #expect(error.description == message)
        }
    }

    @Test("cue times in messages: m:ss.fff, rounded to the millisecond without a 60th second", arguments: [
        (0.0, "0:00.000"), (62.5, "1:02.500"), (3600.0, "60:00.000"), (59.9996, "1:00.000"), (0.0133, "0:00.013"),
    ])
    func cueClock(_ seconds: Double, _ text: String) {
        #expect(CueSheet.clock(seconds) == text)
    }

    // MARK: Event scripts

    @Test("events: every action, at frames of the rate, spaces and empty events ignored; the actions as listed")
    func everyAction() throws {
        let parsed = try PlaybackScript.parse(" 0:reverse ; 1:forward;2:toggle;;3:noloop;4:pause;5:play;6s:seek=100s;7:loop=0.5-100s;8:stop; ",
                                              sampleRate: 10)
        #expect(parsed.map(\.frame) == [0, 10, 20, 30, 40, 50, 6, 70, 80])
        #expect(parsed.map(\.command) == [.setDirection(.reverse), .setDirection(.forward), .toggleDirection, .loop(nil), .pause, .play,
                                          .seek(toFrame: 100), .loop(5..<100), .stop])
        #expect(try PlaybackScript.parse("", sampleRate: 48000).isEmpty)
        #expect(try PlaybackScript.parse(" ; ;", sampleRate: 48000).isEmpty)
        // The actions as help and messages list them.
        #expect(PlaybackScript.actionForms == "reverse, forward, toggle, seek=TIME, loop=TIME-TIME, noloop, pause, play or stop")
    }

    @Test("events: each bad event is a CommandLineError quoting it", arguments: [
        ("1:loop=1", "event '1:loop=1': write loop=START-END"),
        ("1:loop=1-2-3", "event '1:loop=1-2-3': write loop=START-END"),
        ("1:loop=2-2", "event '1:loop=2-2': the loop's start must come before its end"),
        ("1:seek=", "event '1:seek=': '' is not a time: write seconds (12.5), [[hh:]mm:]ss[.fff] (1:02.5) or frames with an s suffix (66150s)"),
        ("x:stop", "event 'x:stop': 'x' is not a time: write seconds (12.5), [[hh:]mm:]ss[.fff] (1:02.5) or frames with an s suffix (66150s)"),
        ("1:reversed", "event '1:reversed': write AT:ACTION, AT a time and ACTION one of reverse, forward, toggle, seek=TIME, loop=TIME-TIME, noloop, pause, play or stop"),
        ("stop", "event 'stop': write AT:ACTION, AT a time and ACTION one of reverse, forward, toggle, seek=TIME, loop=TIME-TIME, noloop, pause, play or stop"),
        ("1:stop=2", "event '1:stop=2': unknown action 'stop=2' (reverse, forward, toggle, seek=TIME, loop=TIME-TIME, noloop, pause, play, stop)"),
        ("1:stop;2:\tplay", "a control character (\\t) has no place in an event list"),
        ("1:stop\u{7F}", "a control character (\\x7F) has no place in an event list"),
    ])
    func eventErrors(_ text: String, _ message: String) {
        do {
            let parsed = try PlaybackScript.parse(text, sampleRate: 48000)
            Issue.record("\(text.debugDescription) parsed as \(parsed)")
        } catch {
            #expect(error as? CommandLineError == CommandLineError(message), "\(error)")
        }
    }
}

/// What the tool prints, formed in process: tables, the play status line and its keys, loop
/// markers, batch output names, conversion summaries and progress clocks.
@Suite struct TerminalTextTests {
    // MARK: TextTable

    @Test("a table pads each column to its widest cell, numbers right-aligned, no trailing spaces")
    func table() {
        var table = TextTable("name", "frames", "rate")
        table.add("a.wav", "44100", "44100")
        table.add(["long-name.flac", "7", "8000"])
        #expect(table.render() == """
            name            frames  rate
            --------------  ------  -----
            a.wav            44100  44100
            long-name.flac       7   8000
            """)
    }

    @Test("a row with more cells than headers is drawn whole, its extra column padded like the rest")
    func tableWideRow() {
        var table = TextTable("name", "frames")
        table.add("a.wav", "1", "extra")
        table.add("b.wav", "22", "more text")
        #expect(table.render().split(separator: "\n").map(String.init) == [
            "name   frames",
            "-----  ------  ---------",
            "a.wav       1  extra",
            "b.wav      22  more text",
        ])
    }

    @Test("a duration is a number; a cell with words or empty is text, and a short row ends early")
    func tableCells() {
        var table = TextTable("file", "duration", "channels")
        table.add("x", "12.5 s", "1 (mono)")
        table.add("yy", "", "2")
        table.add("z")
        #expect(table.render().split(separator: "\n").map(String.init) == [
            "file  duration  channels",
            "----  --------  --------",
            "x       12.5 s  1 (mono)",
            "yy                     2",
            "z",
        ])
    }

    // MARK: PlayKey

    @Test("keys: space, r, [, ], l, q, Ctrl-C, Ctrl-D and arrows, in order; other bytes dropped")
    func keys() {
        var pending: [UInt8] = []
        let bytes = Array(" rR[]lLqQx".utf8) + [0x03, 0x04] + [0x1B, 0x5B, 0x43, 0x1B, 0x5B, 0x44, 0x1B, 0x4F, 0x43, 0x1B, 0x4F, 0x44]
        #expect(PlayKey.decode(bytes, pending: &pending) == [.pauseResume, .toggleDirection, .toggleDirection, .loopStart, .loopEnd,
                                                             .loopOnOff, .loopOnOff, .quit, .quit, .quit, .quit,
                                                             .forward, .back, .forward, .back])
        #expect(pending.isEmpty)
    }

    @Test("keys: an arrow cut between two reads is kept until its end comes; other escapes are dropped")
    func keysAcrossReads() {
        var pending: [UInt8] = []
        #expect(PlayKey.decode([0x20, 0x1B], pending: &pending) == [.pauseResume])
        #expect(pending == [0x1B])
        #expect(PlayKey.decode([0x5B], pending: &pending).isEmpty)
        #expect(pending == [0x1B, 0x5B])
        #expect(PlayKey.decode([0x44, 0x71], pending: &pending) == [.back, .quit])
        #expect(pending.isEmpty)
        // Up arrow: a whole sequence no key answers; ESC then a plain key: the key.
        #expect(PlayKey.decode([0x1B, 0x5B, 0x41, 0x1B, 0x71], pending: &pending) == [.quit])
        #expect(pending.isEmpty)
    }

    // MARK: PlayStatusLine and LoopMarkers

    static func info(tags: [String: String]) -> AudioInfo {
        AudioInfo(path: "song.flac", container: "flac", containerName: "raw FLAC", codec: "flac", codecName: "FLAC",
                  sampleRate: 10, channelCount: 2, channelLayout: "stereo", sampleFormat: "s16", bitsPerSample: 16,
                  containerDuration: 100, frames: 1000, bitRate: nil, tags: tags)
    }

    static func status(position: Int64, direction: PlaybackDirection = .forward, playing: Bool = true) -> PlaybackStatus {
        var state = PlaybackState(frameCount: 1000, position: position, direction: direction)
        state.isPlaying = playing
        return PlaybackStatus(state: state, framesRendered: 0, loopWraps: 0, underruns: 0, sampleRate: 10)
    }

    @Test("status title: 'Title — Artist' from tags in any case, else the title, else the file's name")
    func statusTitle() {
        #expect(PlayStatusLine(info: Self.info(tags: ["TITLE": "Song ", "Artist": "Band"]), path: "/m/song.flac").title == "Song — Band")
        #expect(PlayStatusLine(info: Self.info(tags: ["title": "Song"]), path: "/m/song.flac").title == "Song")
        #expect(PlayStatusLine(info: Self.info(tags: ["artist": "Band"]), path: "/m/song.flac").title == "song.flac")
        #expect(PlayStatusLine(info: Self.info(tags: ["title": "  ", "artist": "Band"]), path: "dir/take 2.wav").title == "take 2.wav")
    }

    @Test("status line: arrow, title, position / length and a bar with the cursor; loop markers in the bar")
    func statusLine() {
        let line = PlayStatusLine(info: Self.info(tags: ["title": "Song", "artist": "Band"]), path: "song.flac")
        #expect(line.text(Self.status(position: 250), markers: LoopMarkers(region: nil, frameCount: 1000), width: 80)
                == ">> forward  Song — Band  00:25.0 / 01:40.0  [=====|----------------]")
        #expect(line.text(Self.status(position: 250), markers: LoopMarkers(region: 100..<500, frameCount: 1000), width: 100)
                == ">> forward  Song — Band  00:25.0 / 01:40.0  loop 00:10.0-00:50.0  [==[==|----]----------]")
        let paused = line.text(Self.status(position: 1000, direction: .reverse, playing: false), markers: LoopMarkers(region: nil, frameCount: 1000),
                               width: 80)
        #expect(paused.hasPrefix("<< reverse (paused)  Song — Band  01:40.0 / 01:40.0  ["), "\(paused)")
        #expect(paused.hasSuffix("|]"), "the cursor at the end sits in the last cell: \(paused)")
    }

    @Test("status line: markers that make no loop say off; a narrow terminal shortens the title, never passes the width")
    func statusLineEdges() {
        var markers = LoopMarkers(region: 100..<500, frameCount: 1000)
        markers.isOn = false
        let line = PlayStatusLine(info: Self.info(tags: ["title": String(repeating: "x", count: 60)]), path: "song.flac")
        #expect(line.text(Self.status(position: 0), markers: markers, width: 120).contains("loop 00:10.0-00:50.0 off"))
        var backwards = LoopMarkers(region: nil, frameCount: 1000)
        backwards.start = 600
        backwards.end = 200
        backwards.isOn = true
        #expect(line.text(Self.status(position: 0), markers: backwards, width: 120).contains("loop 01:00.0-00:20.0 off"))
        for width in [0, 10, 30, 50, 79, 200] {
            let text = line.text(Self.status(position: 500), markers: LoopMarkers(region: nil, frameCount: 1000), width: width)
            #expect(text.count <= width, "width \(width): \(text)")
        }
        #expect(line.text(Self.status(position: 0), markers: LoopMarkers(region: nil, frameCount: 1000), width: 60).contains("x…"))
        #expect(line.text(Self.status(position: 0), markers: LoopMarkers(region: nil, frameCount: 1000), width: -5) == "")
    }

    @Test("status clock: mm:ss.t, h:mm:ss.t from an hour, tenths truncated", arguments: [
        (Int64(0), 44100, "00:00.0"), (Int64(8 * 83 + 4), 8, "01:23.5"), (Int64(44099), 44100, "00:00.9"), (Int64(3), 4, "00:00.7"),
        (Int64(3723 * 8000 + 4000), 8000, "1:02:03.5"), (Int64(36000 * 10), 10, "10:00:00.0"), (Int64(5), 0, "00:05.0"),
    ])
    func statusClock(_ frame: Int64, _ rate: Int, _ text: String) {
        #expect(PlayStatusLine.clock(frame, rate) == text)
    }

    @Test("loop markers: --loop gives the whole file, a region its ends inside it; off or empty is no loop")
    func loopMarkers() {
        let none = LoopMarkers(region: nil, frameCount: 1000)
        #expect(!none.isOn && none.start == nil && none.end == nil && none.region(frameCount: 1000) == nil)
        let whole = LoopMarkers(region: 0..<1000, frameCount: 1000)
        #expect(whole.isOn && whole.start == nil && whole.end == nil && whole.region(frameCount: 1000) == 0..<1000)
        let part = LoopMarkers(region: 10..<20, frameCount: 1000)
        #expect(part.start == 10 && part.end == 20 && part.region(frameCount: 1000) == 10..<20)
        var startOnly = LoopMarkers(region: nil, frameCount: 1000)
        startOnly.start = 990
        startOnly.isOn = true
        #expect(startOnly.region(frameCount: 1000) == 990..<1000)
        startOnly.start = 1000
        #expect(startOnly.region(frameCount: 1000) == nil)
    }

    // MARK: Output names

    static func found(_ path: String, folder: String = "", stem: String) -> SupportedAudioFiles.Found {
        SupportedAudioFiles.Found(url: URL(fileURLWithPath: path), relativeFolder: folder, outputStem: stem)
    }

    @Test("batch outputs: NAME-REVERSED.EXT under the input's subfolders, in the format asked for")
    func outputNames() throws {
        let inputs = [Self.found("/in/a.mp3", stem: "a"), Self.found("/in/live/2019/b.flac", folder: "live/2019", stem: "b"),
                      Self.found("/in/c.wav", stem: "c-wav")]
        let wav = OutputNaming.outputs(for: inputs, format: .wav)
        #expect(wav.map(\.output) == ["a-REVERSED.wav", "live/2019/b-REVERSED.wav", "c-wav-REVERSED.wav"])
        #expect(wav.allSatisfy { $0.clash == nil })
        let flac = OutputNaming.outputs(for: inputs, format: try OutputFormat.forFile(URL(fileURLWithPath: "x.flac")))
        #expect(flac.map(\.output) == ["a-REVERSED.flac", "live/2019/b-REVERSED.flac", "c-wav-REVERSED.flac"])
    }

    @Test("batch outputs: a second input with an earlier one's output (in any case) names that input, never renamed")
    func outputClashes() {
        let outputs = OutputNaming.outputs(for: [Self.found("/a/x.mp3", stem: "x"), Self.found("/b/x.mp3", stem: "x"),
                                                 Self.found("/c/X.wav", stem: "X"), Self.found("/d/y.wav", stem: "y")], format: .wav)
        #expect(outputs.map(\.output) == ["x-REVERSED.wav", "x-REVERSED.wav", "X-REVERSED.wav", "y-REVERSED.wav"])
        #expect(outputs.map(\.clash) == [nil, "/a/x.mp3", "/a/x.mp3", nil])
        #expect(OutputNaming.outputs(for: [], format: .wav).isEmpty)
    }

    @Test("split piece names: %n zero-padded, %t and %a made safe for a file name, %% a percent", arguments: [
        ("%n - %t", 3, 2, "Intro/Outro", "", "03 - Intro_Outro"),
        ("%a - %t", 12, 2, "Song\n", " Band ", "Band - Song_"),
        ("lecture-%n", 7, 3, "", "", "lecture-007"),
        ("100%% %n%", 1, 1, "", "", "100% 1%"),
        ("%n %q", 1, 1, "", "", "1 %q"),
        ("%t", 7, 2, "...", "", "7"),
        ("%t", 1, 2, "..hidden\\name", "", "hidden_name"),
    ])
    func pieceNames(_ template: String, _ number: Int, _ digits: Int, _ title: String, _ performer: String, _ name: String) {
        #expect(SplitCommand.fileName(template, number: number, digits: digits, title: title, performer: performer) == name)
    }

    @Test("split piece names are at most 100 characters from the title")
    func longPieceName() {
        let name = SplitCommand.fileName("%t", number: 1, digits: 2, title: String(repeating: "é", count: 150), performer: "")
        #expect(name == String(repeating: "é", count: 100))
    }

    // MARK: Summaries and progress

    static func result(reversed: Bool, frames: Int64, warnings: [ReverseAudioWarning] = [], conversions: [String] = [],
                       passes: Int = 1, predicted: Int64? = nil, failure: String? = nil,
                       reason: OneReaderReason? = nil) throws -> ConversionResult {
        let source = AudioInfo(path: "song.mp3", container: "mp3", containerName: "MP2/3 (MPEG audio layer 2/3)", codec: "mp3",
                               codecName: "MP3", sampleRate: 44100, channelCount: 2, channelLayout: "stereo", sampleFormat: "fltp",
                               bitsPerSample: nil, containerDuration: 2, frames: frames, bitRate: 128_000)
        return ConversionResult(input: URL(fileURLWithPath: "song.mp3"), output: URL(fileURLWithPath: "out.flac"), source: source,
                                format: PCMFormat(sampleFormat: .s16, sampleRate: 44100, channelCount: 2, channelLayoutName: "stereo"),
                                outputFormat: try OutputFormat.forFile(URL(fileURLWithPath: "out.flac")), codec: "flac",
                                storedSampleFormat: .s16, frames: frames, blockFrames: 1152, reversed: reversed, conversions: conversions,
                                warnings: warnings, lengthSource: .packets, predictedFrames: predicted, decodePasses: passes,
                                temporaryBytes: 0, predictionFailure: failure, decodeThreads: reason == nil ? 2 : 1, singleThreadReason: reason)
    }

    @Test("the result line says what was done, to what, how long, how many frames and the format")
    func summaryLine() throws {
        #expect(ConversionSummary.line(try Self.result(reversed: true, frames: 88200), output: "out.flac")
                == "reversed song.mp3 -> out.flac: 2.000 s, 88200 frames, 44100 Hz, stereo, s16")
        #expect(ConversionSummary.line(try Self.result(reversed: false, frames: 44100), output: "-")
                == "converted song.mp3 -> -: 1.000 s, 44100 frames, 44100 Hz, stereo, s16")
        // "frames" even for one: scripts (check-corpus, the consistency tests) read the count after ", ".
        #expect(ConversionSummary.line(try Self.result(reversed: false, frames: 1), output: "-").contains(", 1 frames, "))
    }

    @Test("the --json object of a conversion, and of a failure with its kind")
    func summaryJSON() throws {
        let object = ConversionSummary.json(try Self.result(reversed: true, frames: 22050), input: "in/song.mp3", output: "out.flac")
        #expect(object["input"] as? String == "in/song.mp3")
        #expect(object["output"] as? String == "out.flac")
        #expect(object["reversed"] as? Bool == true)
        #expect(object["frames"] as? Int64 == 22050)
        #expect(object["durationSeconds"] as? Double == 0.5)
        #expect(object["sampleRate"] as? Int == 44100)
        #expect(object["channels"] as? Int == 2)
        #expect(object["sampleFormat"] as? String == "s16")
        #expect(object["container"] as? String == "flac")
        #expect(object["codec"] as? String == "flac")
        #expect(object["status"] as? String == "done")
        #expect((object["warnings"] as? [String])?.isEmpty == true)
        let failed = ConversionSummary.failedJSON(ReverseAudioError.input(.notMedia(path: "bad.mp3", reason: "Invalid data")),
                                                  input: "bad.mp3", output: nil)
        #expect(failed["status"] as? String == "failed")
        #expect(failed["kind"] as? String == "notMedia")
        #expect(failed["error"] as? String == "bad.mp3: not an audio file FFmpeg can read (Invalid data)")
        #expect(failed["input"] as? String == "bad.mp3")
        #expect(failed["output"] == nil)
        #expect(ConversionSummary.failedJSON(CommandLineError("x"), input: nil, output: "o.wav")["kind"] as? String == "other")
        #expect(JSONResultOption.line(["output": "a/b.wav", "frames": 3]) == #"{"frames":3,"output":"a/b.wav"}"#)
    }

    @Test("the --verbose lines: threads and why one, the length's source, passes in English, conversions")
    func summaryDetails() throws {
        let many = ConversionSummary.details(try Self.result(reversed: true, frames: 88200, conversions: ["resampled 48000 → 44100 Hz"],
                                                             passes: 2, predicted: 88200))
        #expect(many.contains("  threads: 2 decoding"))
        #expect(many.contains("  length known from: packets (predicted 88200, decoded 88200); decoded 2 times"))
        #expect(many.contains("  conversions: resampled 48000 → 44100 Hz"))
        #expect(many.contains("  blocks: 1152 frames each"))
        let one = ConversionSummary.details(try Self.result(reversed: true, frames: 10, failure: "no index", reason: .oneThreadAsked))
        #expect(one.contains { $0.hasPrefix("  threads: 1 decoding (one thread: ") })
        #expect(one.contains("  length known from: packets (predicted nothing: no index, decoded 10); decoded 1 time"))
        #expect(one.contains("  conversions: none (the samples are the input's own)"))
        #expect(one.contains("  written as: flac / flac, 44100 Hz, 2 ch, s16"))
    }

    @Test("progress clock: m:ss, h:mm:ss from an hour, rounded to the second", arguments: [
        (0.0, "0:00"), (5.4, "0:05"), (59.5, "1:00"), (65.0, "1:05"), (3599.4, "59:59"), (3723.0, "1:02:03"),
    ])
    func progressClock(_ seconds: Double, _ text: String) {
        #expect(ProgressDisplay.clock(seconds) == text)
    }

    @Test("progress: an explicit style stays as asked; none gives no handler")
    func progressStyles() {
        #expect(ProgressStyle.bar.resolved == .bar)
        #expect(ProgressStyle.json.resolved == .json)
        #expect(ProgressStyle.none.resolved == .none)
        #expect(ProgressDisplay(style: .none).handler(file: "a.wav", index: 1, count: 1) == nil)
        #expect(ProgressDisplay(style: .bar).handler(file: "a.wav", index: 1, count: 1) != nil)
    }
}
