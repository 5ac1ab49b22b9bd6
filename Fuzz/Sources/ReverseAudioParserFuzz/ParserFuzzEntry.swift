import Foundation
import ReverseAudio
import ReverseAudioCommandLine

/// libFuzzer's entry point for the text the tool reads: the time-value parser
/// (``TimePosition/init(parsing:maximumSeconds:limitName:)`` and the option wrappers in
/// ``TimeValue``), composition plans (``PlanParser``) and playback event scripts
/// (``PlaybackScript``). `REVERSE_AUDIO_FUZZ_PARSER` (`time`, `plan` or `events`; `scripts/fuzz`
/// sets it) picks the parser, so that each gets a corpus of its own.
///
/// Besides crashes and traps (an overflow, a conversion of a huge Double to an integer), what
/// counts as a finding is a parse that succeeds and breaks a documented rule: a time past its
/// limit, a frame that is negative or not saturated, a silence longer than allowed, a file name
/// holding a control character, an error message that does not name its line or event.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOneInput(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = UnsafeBufferPointer(start: data, count: size)
    // The tool reads plans as UTF-8 (and refuses other text before parsing); arguments arrive
    // as Strings. Invalid bytes are repaired here as Foundation would never pass them on.
    let text = String(decoding: bytes, as: UTF8.self)
    switch ParserFuzz.parser {
    case .time: ParserFuzz.time(text)
    case .plan: ParserFuzz.plan(text)
    case .events: ParserFuzz.events(text, rateSeed: bytes.first ?? 0)
    }
    return 0
}

enum ParserFuzz {
    enum Parser: String { case time, plan, events }

    static let parser: Parser = {
        let name = ProcessInfo.processInfo.environment["REVERSE_AUDIO_FUZZ_PARSER"] ?? "time"
        guard let parser = Parser(rawValue: name) else {
            FileHandle.standardError.write(Data("ReverseAudioParserFuzz: REVERSE_AUDIO_FUZZ_PARSER must be time, plan or events, not \(name)\n".utf8))
            exit(2)
        }
        return parser
    }()

    /// Sample rates a time is turned into frames at: the common ones and the extremes a file can declare.
    static let rates = [1, 8000, 44100, 48000, 192_000, 768_000, Int(Int32.max)]
    /// The library's bounds, as its documentation states them: the most frames a time may name
    /// (10^12), and the frame past which conversions saturate (2^61).
    static let maximumFrames: Int64 = 1_000_000_000_000
    static let saturatedFrame: Int64 = 1 << 61

    static func time(_ text: String) {
        let parsed = try? TimePosition(parsing: text)
        check((try? TimeValue.position(text)) == parsed, "TimeValue.position disagrees on '\(text.debugDescription)'")
        if let silence = try? TimeValue.silence(text) {
            check(parsed == silence, "a silence that is no time: '\(text.debugDescription)'")
            if case .seconds(let seconds) = silence { check(seconds <= CompositionPiece.maximumSilenceSeconds, "silence past 24 hours") }
        }
        if let parsed {
            checkWithinLimits(parsed, text)
        } else {
            do {
                _ = try TimePosition(parsing: text)
            } catch {
                // Scalars, not Characters: a combining mark after the quote makes one Character of both.
                check(error.description.unicodeScalars.first == "'", "a time error that does not quote the text: \(error)")
                check(!error.description.unicodeScalars.contains { $0.value < 0x20 }, "an error message with a raw control character")
            }
        }
        // Values made in code, whatever they are, never trap.
        let bits = text.utf8.reduce(UInt64(0xcbf29ce484222325)) { ($0 ^ UInt64($1)) &* 0x100000001b3 }
        for value in [TimePosition.seconds(Double(bitPattern: bits)), .frames(Int64(bitPattern: bits))] {
            for rate in rates { _ = value.frame(atRate: rate) }
            _ = try? TimeRange(start: value, duration: value)
        }
    }

    static func checkWithinLimits(_ time: TimePosition, _ text: String) {
        switch time {
        case .seconds(let seconds):
            check(seconds.isFinite && seconds >= 0 && seconds <= TimePosition.maximumSeconds,
                  "'\(text.debugDescription)' parsed to \(seconds) s, outside 0...\(TimePosition.maximumSeconds)")
        case .frames(let frames):
            check(frames >= 0 && frames <= maximumFrames, "'\(text.debugDescription)' parsed to \(frames) frames")
        }
        for rate in rates {
            let frame = time.frame(atRate: rate)
            check(frame >= 0 && frame <= saturatedFrame, "\(time) at \(rate) Hz is frame \(frame)")
        }
    }

    static func plan(_ text: String) {
        let folder = URL(fileURLWithPath: "/plans", isDirectory: true)
        do {
            let pieces = try PlanParser.parse(text, relativeTo: folder, name: "plan.txt")
            check(!pieces.isEmpty, "a plan parsed to no pieces")
            for piece in pieces {
                switch piece {
                case .silence(let length):
                    checkWithinLimits(length, "silence")
                    if case .seconds(let seconds) = length { check(seconds <= CompositionPiece.maximumSilenceSeconds, "silence of \(seconds) s") }
                case .file(let url, let range, _, _):
                    check(!url.path.unicodeScalars.contains { $0.value < 0x20 && $0 != "\t" }, "a file name with a control character: \(url.path.debugDescription)")
                    if let range {
                        for time in [range.start, range.end, range.duration].compactMap({ $0 }) { checkWithinLimits(time, "range") }
                    }
                }
            }
        } catch let error as CommandLineError {
            check(error.description.unicodeScalars.starts(with: "plan.txt".unicodeScalars), "a plan error that does not name the plan: \(error)")
            check(error.description.contains(", line ") || error.description.contains("no pieces"),
                  "a plan error that names no line: \(error)")
            check(!error.description.unicodeScalars.contains { $0.value < 0x20 && $0 != "\t" }, "an error message with a raw control character: \(error.description.debugDescription)")
        } catch {
            check(false, "PlanParser threw \(type(of: error)), not a CommandLineError: \(error)")
        }
    }

    static func events(_ text: String, rateSeed: UInt8) {
        let rate = rates[Int(rateSeed) % rates.count]
        do {
            for (frame, command) in try PlaybackScript.parse(text, sampleRate: rate) {
                check(frame >= 0 && frame <= saturatedFrame, "an event at frame \(frame)")
                switch command {
                case .seek(let target): check(target >= 0, "a seek to \(target)")
                case .loop(let region?): check(region.lowerBound >= 0 && !region.isEmpty, "a loop \(region)")
                default: break
                }
            }
        } catch let error as CommandLineError {
            check(!error.description.unicodeScalars.contains { $0.value < 0x20 && $0 != "\t" }, "an error message with a raw control character: \(error.description.debugDescription)")
        } catch {
            check(false, "PlaybackScript threw \(type(of: error)), not a CommandLineError: \(error)")
        }
    }

    static func check(_ condition: Bool, _ message: @autoclosure () -> String) {
        guard !condition else { return }
        FileHandle.standardError.write(Data("ReverseAudioParserFuzz (\(parser.rawValue)): \(message())\n".utf8))
        abort()
    }
}
