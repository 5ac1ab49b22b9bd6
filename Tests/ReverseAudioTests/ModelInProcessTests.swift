import Foundation
import Testing
import TestSupport
@testable import ReverseAudioCore

/// The core's model and support values in process (no file, no FFmpeg): times and ranges to
/// frames at the edges (rounding, the last frame, empty and contradictory ranges), formats,
/// selections and pieces, the text every message is built from (one line, the file named, no
/// command-line flag), control characters escaped, and progress that never goes back.
@Suite struct ModelInProcessTests {
    // MARK: Times and ranges

    @Test("a time's frame rounds to the nearest, half away from zero; the held frame is the one the instant lies in")
    func framesOfTimes() {
        #expect(TimePosition.seconds(0.25).frame(atRate: 2) == 1)
        #expect(TimePosition.seconds(0.75).frame(atRate: 2) == 2)
        #expect(TimePosition.seconds(0.2).frame(atRate: 2) == 0)
        #expect(TimePosition.seconds(1).frame(atRate: 44_100) == 44_100)
        #expect(TimePosition.seconds(0).frame(atRate: 44_100) == 0)
        #expect(TimePosition.frames(66_150).frame(atRate: 8_000) == 66_150, "frames are frames at every rate")
        // 4.99999 s at 44.1 kHz is frame 220499.56: rounding says 220500, the instant is in 220499.
        #expect(TimePosition.seconds(4.99999).frame(atRate: 44_100) == 220_500)
        #expect(TimePosition.seconds(4.99999).heldFrame(atRate: 44_100) == 220_499)
        // 0.29 × 44100 is 12788.999…98 in binary: still the grid frame 12789, not the one before.
        #expect(TimePosition.seconds(0.29).heldFrame(atRate: 44_100) == 12_789)
        #expect(TimePosition.seconds(0.1).heldFrame(atRate: 48_000) == 4_800)
        #expect(TimePosition.frames(7).heldFrame(atRate: 44_100) == 7)
    }

    @Test("zero, order and text of times: undecided across forms, decided within one")
    func timeOrderAndText() {
        #expect(TimePosition.seconds(0).isZero && TimePosition.frames(0).isZero && TimePosition.seconds(-0.0).isZero)
        #expect(!TimePosition.seconds(1e-9).isZero && !TimePosition.frames(1).isZero)
        #expect(TimePosition.seconds(1).comesNoLaterThan(.seconds(1)))
        #expect(!TimePosition.seconds(2).comesNoLaterThan(.seconds(1)))
        #expect(TimePosition.frames(5).comesNoLaterThan(.frames(6)))
        // 1 s against 44100 frames depends on the rate: never taken as in order.
        #expect(!TimePosition.seconds(1).comesNoLaterThan(.frames(44_100)))
        #expect(!TimePosition.frames(1).comesNoLaterThan(.seconds(1_000)))
        // Zero is zero in any form.
        #expect(TimePosition.seconds(0).comesNoLaterThan(.frames(0)) && TimePosition.frames(0).comesNoLaterThan(.seconds(0)))
        #expect(TimePosition.seconds(12.5).description == "12.500 s")
        #expect(TimePosition.seconds(0.0004).description == "0.000 s")
        #expect(TimePosition.frames(66_150).description == "66150s")
    }

    @Test("a parse with its own limit names that limit; the text is shown with control characters escaped")
    func parseLimits() {
        func failure(_ text: String, maximum: Double = TimePosition.maximumSeconds, name: String = "the longest time accepted")
            -> TimePosition.ParseError? {
            do {
                _ = try TimePosition(parsing: text, maximumSeconds: maximum, limitName: name)
                return nil
            } catch {
                return error
            }
        }
        let silence = failure("86400.5", maximum: 86_400, name: "the longest silence")
        #expect(silence?.description == "'86400.5' is more than the longest silence, 86400 s (24:00:00)")
        #expect(silence?.isPastLimit == true)
        #expect(failure("1:01", maximum: 60, name: "a minute")?.description == "'1:01' is more than a minute, 60 s (0:01:00)")
        #expect((try? TimePosition(parsing: "86400", maximumSeconds: 86_400)) == .seconds(86_400), "the limit itself is allowed")
        // A larger limit than the global one is the global one.
        #expect(failure("1000001", maximum: 1e12)?.isPastLimit == true)
        // A malformed time is not "past the limit": a caller may suggest a smaller number only for the latter.
        #expect(failure("1:2:3:4")?.isPastLimit == false)
        let control = failure("1\n\u{1B}")
        #expect(control?.text == #"1\n\x1B"#)
        #expect(control?.description.contains("\n") == false)
        // Frames have their own bound, not the seconds limit.
        #expect((try? TimePosition(parsing: "90000s", maximumSeconds: 1)) == .frames(90_000))
    }

    @Test("a range refuses an end and a duration together, a zero duration and an end not after the start, saying which")
    func contradictoryRanges() {
        #expect(throws: ReverseAudioError.range(.invalidRange(reason: "give an end or a duration, not both"))) {
            _ = try TimeRange(end: .seconds(2), duration: .seconds(1))
        }
        for zero in [TimePosition.seconds(0), .frames(0)] {
            #expect(throws: ReverseAudioError.range(.invalidRange(reason: "the duration must be longer than 0"))) {
                _ = try TimeRange(start: .seconds(1), duration: zero)
            }
        }
        #expect(throws: ReverseAudioError.range(.invalidRange(reason: "the end (1.000 s) must come after the start (2.000 s)"))) {
            _ = try TimeRange(start: .seconds(2), end: .seconds(1))
        }
        #expect(throws: ReverseAudioError.range(.invalidRange(reason: "the end (10s) must come after the start (10s)"))) {
            _ = try TimeRange(start: .frames(10), end: .frames(10))
        }
        #expect(throws: ReverseAudioError.range(.invalidRange(reason: "the end (0.000 s) must come after the start (0s)"))) {
            _ = try TimeRange(end: .seconds(0))
        }
        #expect(ReverseAudioError.range(.invalidRange(reason: "x")).description == "invalid range: x")
    }

    @Test("a range's frames at a rate: [start, end), a duration from the start, open to the end; empty at this rate is refused")
    func rangeFrames() throws {
        #expect(try TimeRange(start: .seconds(1), end: .seconds(2)).frames(atRate: 48_000) == 48_000..<96_000)
        #expect(try TimeRange(start: .seconds(1), duration: .seconds(0.5)).frames(atRate: 48_000) == 48_000..<72_000)
        #expect(try TimeRange(start: .frames(10), duration: .frames(5)).frames(atRate: 8_000) == 10..<15)
        #expect(try TimeRange().frames(atRate: 44_100) == 0..<Int64.max)
        #expect(try TimeRange(start: .seconds(2)).frames(atRate: 44_100) == 88_200..<Int64.max)
        // Seconds against frames is decided only at a rate: 1 s is after frame 10.
        let mixed = try TimeRange(start: .seconds(1), end: .frames(10))
        #expect(throws: ReverseAudioError.range(.emptyRange(path: "a.wav", start: 44_100, end: 10))) {
            _ = try mixed.frames(atRate: 44_100, path: "a.wav")
        }
        // A duration shorter than half a frame holds no frame.
        #expect(throws: ReverseAudioError.range(.emptyRange(path: "", start: 0, end: 0))) {
            _ = try TimeRange(duration: .seconds(0.00005)).frames(atRate: 8_000)
        }
        #expect(ReverseAudioError.range(.emptyRange(path: "a.wav", start: 44_100, end: 10)).description
                == "a.wav: the range is empty (start 44100 ≥ end 10 frames)")
    }

    @Test("a start inside the last frame is that frame; the length is asked only for a start that rounding moved up")
    func startInLastFrame() throws {
        let late = try TimeRange(start: .seconds(4.99999))
        var asked = 0
        #expect(try late.frames(atRate: 44_100, path: "a.wav", length: { asked += 1; return 220_500 }) == 220_499..<Int64.max)
        #expect(asked == 1)
        // In a longer file the rounded frame exists: kept.
        #expect(try late.frames(atRate: 44_100, path: "a.wav", length: { 300_000 }) == 220_500..<Int64.max)
        // A start on the grid is never moved, and no length is needed for it.
        asked = 0
        #expect(try TimeRange(start: .seconds(5)).frames(atRate: 44_100, path: "a.wav", length: { asked += 1; return 220_500 })
                == 220_500..<Int64.max)
        #expect(try TimeRange(start: .seconds(1.2)).frames(atRate: 44_100, path: "a.wav", length: { asked += 1; return 52_920 })
                == 52_920..<Int64.max)
        #expect(asked == 0)
    }

    @Test("a range within a stream: the open end becomes the stream's; a start or end past it is refused with the length")
    func rangeWithinStream() throws {
        #expect((10..<20 as Range<Int64>).count(within: 15) == 5)
        #expect((10..<20 as Range<Int64>).count(within: 5) == 0)
        #expect((0..<Int64.max as Range<Int64>).count(within: 100) == 100)
        #expect(try (0..<Int64.max as Range<Int64>).within(length: 100, sampleRate: 44_100, path: "a.wav") == 0..<100)
        #expect(try (99..<100 as Range<Int64>).within(length: 100, sampleRate: 44_100, path: "a.wav") == 99..<100)
        let startPast = ReverseAudioError.range(.rangePastEnd(path: "a.wav", frame: 100, isStart: true, length: 100, sampleRate: 44_100))
        #expect(throws: startPast) { _ = try (100..<Int64.max as Range<Int64>).within(length: 100, sampleRate: 44_100, path: "a.wav") }
        let endPast = ReverseAudioError.range(.rangePastEnd(path: "a.wav", frame: 44_101, isStart: false, length: 44_100, sampleRate: 44_100))
        #expect(throws: endPast) { _ = try (0..<44_101 as Range<Int64>).within(length: 44_100, sampleRate: 44_100, path: "a.wav") }
        #expect(startPast.description == "a.wav: the range starts at frame 100, after the end of the file (100 frames, 0.002 s)")
        #expect(endPast.description == "a.wav: the range ends at frame 44101, after the end of the file (44100 frames, 1.000 s)")
    }

    // MARK: Formats and selections

    @Test("sample formats: bytes in memory, bits that carry the signal, float or not, names as ffprobe's")
    func sampleFormats() {
        let table: [(SampleFormat, Int, Int, Bool)] = [
            (.u8, 1, 8, false), (.s16, 2, 16, false), (.s24, 4, 24, false), (.s32, 4, 32, false), (.f32, 4, 32, true), (.f64, 8, 64, true),
        ]
        #expect(table.map(\.0) == SampleFormat.allCases)
        for (format, bytes, bits, isFloat) in table {
            #expect(format.bytesPerSample == bytes && format.validBits == bits && format.isFloat == isFloat, "\(format)")
            #expect(SampleFormat(rawValue: format.description) == format)
        }
        #expect(SampleFormat(rawValue: "s24le") == nil && SampleFormat(rawValue: "fltp") == nil)
    }

    @Test("a PCM format: its text, bytes per frame, silence, and which formats hold the same frames")
    func pcmFormats() {
        let stereo = PCMFormat(sampleFormat: .s24, sampleRate: 96_000, channelCount: 2, channelLayoutName: "stereo")
        #expect(stereo.description == "96000 Hz, stereo, s24")
        #expect(PCMFormat(sampleRate: 44_100, channelCount: 3).description == "44100 Hz, 3 channels, s16")
        #expect(PCMFormat(sampleFormat: .f32, sampleRate: 8_000, channelCount: 1).description == "8000 Hz, 1 channel, f32")
        #expect(stereo.bytesPerFrame == 8)
        #expect(PCMFormat(sampleFormat: .f64, sampleRate: 48_000, channelCount: 6).bytesPerFrame == 48)
        #expect(stereo.mono == PCMFormat(sampleFormat: .s24, sampleRate: 96_000, channelCount: 1, channelLayoutName: "mono"))
        #expect(stereo.with(sampleFormat: .f32) == PCMFormat(sampleFormat: .f32, sampleRate: 96_000, channelCount: 2, channelLayoutName: "stereo"))
        // A layout's name is not part of the samples; the rate, channels and format are.
        let unnamed = PCMFormat(sampleFormat: .s24, sampleRate: 96_000, channelCount: 2)
        #expect(stereo.holdsSameFrames(as: unnamed) && stereo != unnamed)
        #expect(!stereo.holdsSameFrames(as: stereo.with(sampleFormat: .s32)))
        #expect(!stereo.holdsSameFrames(as: PCMFormat(sampleFormat: .s24, sampleRate: 88_200, channelCount: 2)))
        #expect(!stereo.holdsSameFrames(as: stereo.mono))
        #expect(SampleFormat.allCases.map { PCMFormat(sampleFormat: $0, sampleRate: 1, channelCount: 1).silenceByte } == [0x80, 0, 0, 0, 0, 0])
    }

    @Test("lengths: an unknown count is known only by decoding, whatever source was claimed; the text says where it came from")
    func pcmLengths() {
        #expect(PCMLength(frames: nil, source: .container) == .unknown)
        #expect(PCMLength(frames: nil, source: .packets).source == .decode)
        #expect(PCMLength(frames: 441_000, source: .packets).description == "441000 frames (packets)")
        #expect(PCMLength(frames: 0, source: .container).description == "0 frames (container)")
        #expect(PCMLength.unknown.description == "unknown")
        #expect(PCMLength(frames: 5, source: .range) != PCMLength(frames: 5, source: .container))
        // Published in `info --json` as framesFrom.
        #expect([LengthSource.container, .packets, .range, .decode].map(\.rawValue) == ["container", "packets", "range", "decode"])
    }

    @Test("channel selections: parsed as the command line takes them, printed back the same, counted in the output")
    func channelSelections() {
        let parsed: [(String, ChannelSelection?)] = [
            ("all", .all), ("ALL", .all), ("first", .first), ("mix", .mix), ("Mono", .mix), ("0", .channel(0)), ("7", .channel(7)),
            ("-1", nil), ("", nil), (" 1", nil), ("1.0", nil), ("left", nil), ("0x1", nil),
        ]
        for (text, expected) in parsed {
            #expect(ChannelSelection(argument: text) == expected, "\(text.debugDescription)")
        }
        for selection in [ChannelSelection.all, .first, .mix, .channel(3)] {
            #expect(ChannelSelection(argument: selection.description) == selection)
        }
        #expect([ChannelSelection.all, .first, .mix, .channel(3)].map(\.extractedChannel) == [nil, 0, nil, 3])
        #expect([ChannelSelection.all, .first, .mix, .channel(3)].map { $0.outputChannelCount(sourceChannels: 6) } == [6, 1, 1, 1])
        #expect(ChannelCountText.phrase(1) == "1 channel")
        #expect(ChannelCountText.phrase(0) == "0 channels")
        #expect(ChannelCountText.phrase(2) == "2 channels")
    }

    @Test("pieces are equal when file, range, direction and effects are; playback commands and directions are told apart")
    func piecesAndCommands() throws {
        let file = URL(fileURLWithPath: "/music/a.wav")
        let range = try TimeRange(start: .seconds(1), end: .seconds(2))
        let piece = CompositionPiece.file(file, range: range, reversed: true, effects: [Gain(decibels: -3), Fade(.in, length: .seconds(1))])
        #expect(piece == .file(file, range: range, reversed: true, effects: [Gain(decibels: -3), Fade(.in, length: .seconds(1))]))
        #expect(piece != .file(file, range: range, reversed: false, effects: [Gain(decibels: -3), Fade(.in, length: .seconds(1))]))
        #expect(piece != .file(file, range: range, reversed: true, effects: [Fade(.in, length: .seconds(1)), Gain(decibels: -3)]),
                "the order of effects matters")
        #expect(piece != .file(file, range: nil, reversed: true, effects: [Gain(decibels: -3), Fade(.in, length: .seconds(1))]))
        #expect(piece != .file(URL(fileURLWithPath: "/music/b.wav"), range: range, reversed: true,
                               effects: [Gain(decibels: -3), Fade(.in, length: .seconds(1))]))
        #expect(CompositionPiece.file(file) == .file(file, range: nil, reversed: false, effects: []))
        #expect(CompositionPiece.silence(.seconds(1)) == .silence(.seconds(1)))
        #expect(CompositionPiece.silence(.seconds(1)) != .silence(.frames(44_100)))
        #expect(CompositionPiece.silence(.seconds(0)) != .file(file))
        #expect(CompositionPiece.maximumSilenceSeconds == 86_400)

        #expect(PlaybackCommand.seek(toFrame: 1) != .seek(toFrame: 2))
        #expect(PlaybackCommand.loop(nil) != .loop(0..<10) && PlaybackCommand.loop(0..<10) == .loop(0..<10))
        #expect(PlaybackCommand.setDirection(.forward) != .setDirection(.reverse))
        #expect(PlaybackCommand.toggleDirection != .setDirection(.reverse) && PlaybackCommand.play != .pause)
        #expect(PlaybackDirection(rawValue: "reverse") == .reverse && PlaybackDirection(rawValue: "backward") == nil)
    }

    static func info(frames: Int64?, containerDuration: Double?, channels: Int = 2, layout: String? = nil) -> AudioInfo {
        AudioInfo(path: "a.mp3", container: "mp3", containerName: "MP2/3 (MPEG audio layer 2/3)", codec: "mp3",
                  codecName: "MP3 (MPEG audio layer 3)", sampleRate: 44_100, channelCount: channels, channelLayout: layout,
                  sampleFormat: "fltp", bitsPerSample: nil, containerDuration: containerDuration, frames: frames, bitRate: 128_000,
                  framesSource: .packets)
    }

    @Test("a file's description: the decoded length wins over the container's, an estimate says so, layouts as ffmpeg guesses them")
    func audioInfo() throws {
        let counted = Self.info(frames: 88_200, containerDuration: 2.1)
        #expect(counted.duration == 2.0 && !counted.durationIsEstimate && counted.framesSource == .packets)
        let estimated = Self.info(frames: nil, containerDuration: 2.1)
        #expect(estimated.duration == 2.1 && estimated.durationIsEstimate)
        #expect(estimated.framesSource == nil, "no source for frames not known")
        let unknown = Self.info(frames: nil, containerDuration: nil)
        #expect(unknown.duration == nil && !unknown.durationIsEstimate)
        #expect(Self.info(frames: 1, containerDuration: nil, channels: 1).layoutName == "mono")
        #expect(Self.info(frames: 1, containerDuration: nil, channels: 2).layoutName == "stereo")
        #expect(Self.info(frames: 1, containerDuration: nil, channels: 6).layoutName == nil)
        #expect(Self.info(frames: 1, containerDuration: nil, channels: 6, layout: "5.1").layoutName == "5.1")
        // Every object has the same keys, unknown values as null, under their published names.
        let object = try #require(try JSONSerialization.jsonObject(with: JSONEncoder().encode(unknown)) as? [String: Any])
        #expect(object.keys.sorted() == ["bitRate", "bitsPerSample", "channelLayout", "channels", "codec", "codecName", "container",
                                         "containerDurationSeconds", "containerName", "durationIsEstimate", "durationSeconds",
                                         "frames", "framesFrom", "path", "sampleRate", "sampleFormat", "streamBitRate", "tags",
                                         "videoStreams"].sorted())
        #expect(object["frames"] is NSNull && object["durationSeconds"] is NSNull && object["channelLayout"] is NSNull)
        #expect(object["channels"] as? Int == 2)
    }

    // MARK: Support

    @Test("control characters and DEL are escaped so a name stays on one line; everything else is kept")
    func controlEscaping() {
        let cases: [(String, String)] = [
            ("plain name.wav", "plain name.wav"), ("café 🎵", "café 🎵"), ("a\u{0}b", #"a\0b"#), ("\t\n\r", #"\t\n\r"#),
            ("\u{1B}[31mred", #"\x1B[31mred"#), ("\u{7F}", #"\x7F"#), ("\u{1}\u{1F}", #"\x01\x1F"#), (#"a\nb"#, #"a\nb"#),
            ("", ""), ("\r\n", #"\r\n"#),
        ]
        for (text, expected) in cases {
            #expect(ControlEscaping.escaped(text) == expected, "\(text.debugDescription)")
        }
        // C1 controls are valid UTF-8 (U+009B is a CSI some terminals obey): escaped too.
        #expect(ControlEscaping.escaped("a\u{9B}2Jb\u{85}") == #"a\u{9B}2Jb\u{85}"#)
        #expect(ControlEscaping.escaped("\u{A0}é") == "\u{A0}é", "U+00A0 is no control")
        // Whatever goes in, no control character (C0, DEL, C1) comes out.
        var every = ""
        every.unicodeScalars.append(contentsOf: (0...0xA0 as ClosedRange<UInt32>).compactMap { Unicode.Scalar($0) })
        #expect(!ControlEscaping.escaped(every).unicodeScalars.contains { $0.value < 0x20 || (0x7F...0x9F).contains($0.value) })
    }

    @Test("a cancellation flag is seen by every holder of its check, from any thread, and stays set")
    func cancellationFlag() async {
        let flag = CancellationFlag()
        let check = flag.check
        #expect(!flag.isCancelled && !check())
        await withTaskGroup(of: Void.self) { group in
            for _ in 0..<8 { group.addTask { flag.cancel() } }
        }
        #expect(flag.isCancelled && check())
        flag.cancel()
        #expect(flag.isCancelled)
        #expect(!CancellationFlag().isCancelled, "flags are independent")
    }

    @Test("progress never goes back, moves in steps of 1%, stays below 1 until complete, which says 1 once")
    func progressSteps() {
        let seen = Collected<Double>()
        let reporter = ProgressReporter { seen.append($0) }
        for fraction in [-0.5, 0.005, 0.01, 0.015, 0.5, 0.3, 1.0, 5.0, 0.9995] {
            reporter.update(fraction)
        }
        #expect(seen.values == [0, 0.01, 0.5, 0.999])
        reporter.complete()
        reporter.complete()
        reporter.update(0.2)
        #expect(seen.values == [0, 0.01, 0.5, 0.999, 1.0])
        // Thousands of updates make about a hundred calls.
        let many = Collected<Double>()
        let busy = ProgressReporter { many.append($0) }
        for step in 0...10_000 { busy.update(Double(step) / 10_000) }
        #expect((90...101).contains(many.values.count), "\(many.values.count)")
        #expect(many.values == many.values.sorted())
        #expect(zip(many.values, many.values.dropFirst()).allSatisfy { $1 - $0 >= 0.01 - 1e-12 }, "steps of at least 1%")
        #expect((0.98..<1).contains(many.values.last ?? 0))
        // NaN (a share of nothing) is not reported, and does not stop the reports after it.
        let odd = Collected<Double>()
        let oddReporter = ProgressReporter { odd.append($0) }
        oddReporter.update(.nan)
        oddReporter.update(0.25)
        oddReporter.update(.nan)
        oddReporter.update(0.5)
        #expect(odd.values == [0.25, 0.5])
        // Without a handler nothing happens, and nothing fails.
        ProgressReporter(nil).update(0.5)
        ProgressReporter(nil).complete()
    }

    @Test("a stage maps its own 0…1 into its share of the whole, clamped to it")
    func progressStages() {
        let seen = Collected<Double>()
        let reporter = ProgressReporter({ seen.append($0) }, step: 0.001)
        let first = reporter.stage(from: 0, to: 0.45)
        let second = reporter.stage(from: 0.45, to: 1)
        first(0.5)
        first(2)
        second(-1)
        second(0.5)
        second(1)
        let expected = [0.225, 0.45, 0.725, 0.999]
        #expect(seen.values.count == expected.count)
        #expect(zip(seen.values, expected).allSatisfy { abs($0 - $1) < 1e-12 }, "\(seen.values)")
    }

    // MARK: Messages

    static let path = "in/a.wav"

    /// One error of every case, and whether its message starts with the file.
    static let everyError: [(ReverseAudioError, Bool)] = [
        (.input(.fileNotFound(path: path)), true),
        (.input(.isDirectory(path: path)), true),
        (.input(.emptyFile(path: path)), true),
        (.input(.unreadable(path: path, reason: "Permission denied")), true),
        (.input(.notMedia(path: path, reason: "Invalid data found when processing input")), true),
        (.input(.noAudioStream(path: path, streams: ["video (h264)"])), true),
        (.input(.unsupportedCodec(path: path, codec: "qdm2")), true),
        (.input(.channelOutOfRange(path: path, channel: 2, channelCount: 2)), true),
        (.input(.decodingFailed(path: path, reason: "Invalid data")), true),
        (.input(.lengthUnknown(path: path, reason: "it is a pipe")), true),
        (.input(.notSeekable(path: path, reason: "a pipe is read once")), true),
        (.input(.notVideo(path: path, reason: "Invalid data")), true),
        (.input(.noVideoStream(path: path, streams: [])), true),
        (.input(.videoStreamFailed(path: path, stream: "video stream 0 (h264)", reason: "no decoder")), true),
        (.input(.formatMismatch(path: path, sampleRate: 48_000, channels: 1, expectedSampleRate: 44_100, expectedChannels: 2)), true),
        (.range(.rangePastEnd(path: path, frame: 10, isStart: true, length: 5, sampleRate: 0)), true),
        (.range(.emptyRange(path: path, start: 5, end: 5)), true),
        (.range(.invalidRange(reason: "give an end or a duration, not both")), false),
        (.range(.cannotSeek(path: path, frame: -1, reason: "a negative frame")), true),
        (.range(.fadesLongerThanHeard(path: path, fadeIn: 10, fadeOut: 10, length: 5, sampleRate: 0)), true),
        (.setting(.outOfRange(.bitRate, value: "7", allowed: "8 to 640 kb/s")), false),
        (.setting(.unknownChoice(.preset, value: "fastest", choices: ["fast", "slow"])), false),
        (.setting(.sampleBufferMismatch(reason: "3 bytes is not a whole frame")), false),
        (.setting(.zoomFinerThanSamples(path: path, samplesPerPixel: 1, sampleRate: 8_000)), true),
        (.output(.unknownOutputFormat(path: path, extension: "xyz", known: ["wav", "flac"])), true),
        (.output(.containerCannotHold(container: "wav", codec: "opus", holds: ["pcm_s16le"])), false),
        (.output(.sampleFormatNotStorable(path: path, codec: "mp3", sampleFormat: .s24, storable: [.s16, .f32])), true),
        (.output(.tooManyChannels(path: path, codec: "mp3", channels: 6, maximum: 2)), true),
        (.output(.unsupportedSampleRate(path: path, codec: "mp3", sampleRate: 96_000, supported: [44_100, 48_000])), true),
        (.output(.nothingToCompose(path: path)), true),
        (.output(.endlessOutput(path: path)), true),
        (.output(.outputExists(path: path)), true),
        (.output(.outputIsInput(path: path)), true),
        (.output(.cannotCreateOutput(path: path, reason: "a folder has that name")), true),
        (.output(.writeFailed(path: path, reason: "No space left on device")), true),
        (.output(.verificationFailed(path: path, reason: "frame 3 differs")), true),
        (.output(.videoContainerCannotHold(container: "mp4", codec: "flac", holders: ["mkv"], codecs: ["aac"])), false),
        (.output(.encoderMissing(name: "libx264", purpose: "a video needs")), false),
        (.device(.deviceUnavailable(name: "default", reason: "no sound server")), false),
        (.device(.deviceFailed(name: "default", reason: "underrun")), false),
    ]

    @Test("every error is one line naming the file and the reason, without a command-line flag, with a kind of its own")
    func everyErrorMessage() {
        for (error, namesFile) in Self.everyError {
            let text = error.description
            #expect(!text.contains("\n") && !text.isEmpty, "\(error)")
            #expect(!text.contains("--") && !text.contains(" -y"), "a library message names a flag: \(text)")
            #expect(!namesFile || text.hasPrefix(Self.path + ": "), "\(text)")
            #expect(!text.hasPrefix(Self.path + ": ") || text.count > Self.path.count + 12, "a reason follows: \(text)")
            #expect(error.errorDescription == text)
        }
        // The payload's reason appears as given.
        for (error, reason) in [(ReverseAudioError.input(.unreadable(path: Self.path, reason: "Permission denied")), "Permission denied"),
                                (.output(.writeFailed(path: Self.path, reason: "No space left on device")), "No space left on device"),
                                (.device(.deviceUnavailable(name: "hw:9", reason: "no such card")), "no such card")] {
            #expect(error.description.contains(reason))
        }
        let kinds = Self.everyError.map(\.0.kind)
        #expect(Set(kinds).count == kinds.count, "a kind per case")
        #expect(kinds.contains("fileNotFound") && kinds.contains("fadesLongerThanHeard") && kinds.contains("deviceFailed"))
    }

    @Test("error wording at the edges: one channel, no streams, no extension, one fade or two, a rate of 0")
    func errorWording() {
        let path = Self.path
        #expect(ReverseAudioError.input(.channelOutOfRange(path: path, channel: 1, channelCount: 1)).description
                == "in/a.wav: channel 1 does not exist (the file has 1 channel, numbered from 0)")
        #expect(ReverseAudioError.input(.channelOutOfRange(path: path, channel: 6, channelCount: 6)).description
                == "in/a.wav: channel 6 does not exist (the file has 6 channels, numbered from 0)")
        #expect(ReverseAudioError.input(.noAudioStream(path: path, streams: [])).description == "in/a.wav: no audio stream (found no streams)")
        #expect(ReverseAudioError.input(.noAudioStream(path: path, streams: ["video (h264)", "subtitle"])).description
                == "in/a.wav: no audio stream (found video (h264), subtitle only)")
        #expect(ReverseAudioError.input(.formatMismatch(path: path, sampleRate: 48_000, channels: 1, expectedSampleRate: 44_100,
                                                        expectedChannels: 2)).description
                == "in/a.wav: 48000 Hz, 1 channel, unlike the first file's 44100 Hz, 2 channels")
        #expect(ReverseAudioError.output(.unknownOutputFormat(path: "in/a", extension: "", known: ["wav", "flac"])).description
                == "in/a: cannot tell the format from a name without an extension; name the file .wav .flac")
        #expect(ReverseAudioError.output(.unknownOutputFormat(path: "in/a.xyz", extension: "xyz", known: ["wav"])).description
                == "in/a.xyz: cannot tell the format from '.xyz'; name the file .wav")
        #expect(ReverseAudioError.range(.fadesLongerThanHeard(path: path, fadeIn: 44_100, fadeOut: 0, length: 22_050, sampleRate: 44_100)).description
                == "in/a.wav: a 1.000 s fade-in lasts longer than the 0.500 s (22050 frames) heard; shorten it to fit")
        #expect(ReverseAudioError.range(.fadesLongerThanHeard(path: path, fadeIn: 0, fadeOut: 44_100, length: 22_050, sampleRate: 44_100)).description
                == "in/a.wav: a 1.000 s fade-out lasts longer than the 0.500 s (22050 frames) heard; shorten it to fit")
        #expect(ReverseAudioError.range(.fadesLongerThanHeard(path: path, fadeIn: 44_100, fadeOut: 22_050, length: 22_050, sampleRate: 44_100)).description
                == "in/a.wav: a 1.000 s fade-in and a 0.500 s fade-out last longer than the 0.500 s (22050 frames) heard; shorten them so that together they fit")
        // A rate of 0 (a broken header) still gives a message, not a trap or "inf".
        let zeroRate = ReverseAudioError.range(.rangePastEnd(path: path, frame: 10, isStart: false, length: 5, sampleRate: 0)).description
        #expect(zeroRate == "in/a.wav: the range ends at frame 10, after the end of the file (5 frames, 5.000 s)")
        #expect(ReverseAudioError.setting(.zoomFinerThanSamples(path: path, samplesPerPixel: 1, sampleRate: 8_000)).description
                == "in/a.wav: at 8000 Hz that zoom gives 1 sample a pixel; a pixel needs at least 2")
        #expect(ReverseAudioError.setting(.unknownChoice(.outputFormat, value: "mp9", choices: ["wav", "mp3"])).description
                == "unknown output format 'mp9'; use one of wav, mp3")
        #expect(ReverseAudioError.output(.videoContainerCannotHold(container: "mp4", codec: "flac", holders: [], codecs: ["aac", "alac"])).description
                == "a .mp4 file cannot hold flac audio, and .mp4 holds aac, alac")
        #expect(ReverseAudioError.output(.sampleFormatNotStorable(path: path, codec: "mp3", sampleFormat: .s24, storable: [.s16, .f32])).description
                == "in/a.wav: MP3 cannot hold s24 samples (it holds s16, f32)")
    }

    @Test("warnings are one sentence without the file, singular for one, seconds to the hundredth, safe at a rate of 0")
    func warningWording() {
        func text(_ kind: ReverseAudioWarning.Kind) -> String { ReverseAudioWarning(kind, subject: Self.path).description }
        #expect(text(.skippedPackets(count: 1, reason: "Invalid data")) == "skipped 1 packet FFmpeg could not decode (Invalid data)")
        #expect(text(.skippedPackets(count: 3, reason: "Invalid data")) == "skipped 3 packets FFmpeg could not decode (Invalid data)")
        #expect(text(.truncated(decodedFrames: 22_050, statedFrames: 44_100, sampleRate: 44_100))
                == "decoded 0.50 s of the 1.00 s the file declares: it looks truncated")
        #expect(text(.headerMisstatesLength(statedFrames: 44_100, decodedFrames: 22_050, sampleRate: 0))
                == "the header declares 44100.00 s (44100 frames) but the stream holds 22050.00 s (22050 frames), every frame intact: the header is wrong; the decoded length was used")
        #expect(text(.lengthDiffers(predictedFrames: 10, decodedFrames: 9, isRange: true))
                == "the range should hold 10 frames but decodes to 9; the decoded length was used")
        #expect(text(.lengthDiffers(predictedFrames: 10, decodedFrames: 9, isRange: false)).hasPrefix("the file declares 10 frames"))
        #expect(text(.reencoded(codecs: ["mp3"], outputCodec: "aac", reason: nil))
                == "re-encoded: generation loss (mp3 decoded and encoded again as aac)")
        #expect(text(.reencoded(codecs: ["mp3", "aac"], outputCodec: "opus", reason: "the range cuts inside a frame"))
                == "re-encoded: generation loss (mp3, aac decoded and encoded again as opus: the range cuts inside a frame)")
        #expect(text(.videoFramesLeftOut(count: 1, reason: "could not be decoded")) == "1 frame could not be decoded")
        #expect(text(.videoFramesLeftOut(count: 2, reason: "could not be decoded")) == "2 frames could not be decoded")
        #expect(text(.converted(changes: ["resampled 48000 → 44100 Hz", "mixed to 2 channels"]))
                == "converted to match the first input: resampled 48000 → 44100 Hz, mixed to 2 channels")
        let every: [ReverseAudioWarning.Kind] = [
            .skippedPackets(count: 0, reason: "r"), .readStoppedEarly(reason: "EIO"), .truncated(decodedFrames: 1, statedFrames: 2, sampleRate: 0),
            .damagedPacketsLost(decodedFrames: 1, statedFrames: 2, sampleRate: 8_000), .headerMisstatesLength(statedFrames: 1, decodedFrames: 2, sampleRate: 1),
            .lengthDiffers(predictedFrames: 1, decodedFrames: 2, isRange: false), .noSamples, .reencoded(codecs: [], outputCodec: "aac", reason: nil),
            .framesNotStated(writtenFrames: 1, decodedFrames: 2, reason: "ADTS states no padding"), .videoFramesLeftOut(count: 1, reason: "r"),
            .videoTruncated(statedFrames: 10, readFrames: 9), .pictureChange("rotated 90°"), .converted(changes: ["resampled"]),
        ]
        for kind in every {
            let sentence = text(kind)
            #expect(!sentence.isEmpty && !sentence.contains("\n") && !sentence.contains(Self.path) && !sentence.contains("--"), "\(sentence)")
        }
        #expect(ReverseAudioWarning(.noSamples, subject: "a.wav") != ReverseAudioWarning(.noSamples, subject: "b.wav"))
    }
}
