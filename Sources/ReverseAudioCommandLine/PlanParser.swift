import Foundation
import ReverseAudioCore

/// The plan file of `compose`: one piece per line, `FILE [START] [END] [reverse] [EFFECT…]` or
/// `silence DURATION`, where an effect is `gain=DB`, `fade-in=T`, `fade-out=T` or
/// `fade-shape=t|q|h|l|p` (the piece's fades' curve, SoX's; `l` unless given).
///
/// - Words are separated by spaces or tabs. `#` outside quotes starts a comment.
/// - A part of a word in double quotes is taken as it is: spaces, `#`, anything but a line
///   break or a control character; a quote inside quotes is written twice (`"say ""hi"".wav"`).
///   A quoted first word is always a file (`"silence"` names a file called silence).
/// - Times take every ``TimePosition`` form, read strictly and within its limits; a silence
///   is at most `silenceLimit` seconds.
/// - Lines end with LF or CRLF; any other control character (NUL, a lone CR, ESC…) is an error
///   naming the line, as is a line that is not one of the two forms.
/// - A relative file name is relative to the plan's folder.
public enum PlanParser {
    /// The pieces of `text`.
    /// - Parameters:
    ///   - text: the plan.
    ///   - folder: the folder relative file names are in.
    ///   - name: the plan's name, for messages.
    ///   - silenceLimit: the longest silence, in seconds (``CompositionPiece/maximumSilenceSeconds``).
    /// - Throws: ``CommandLineError`` naming the line of a bad piece.
    public static func parse(_ text: String, relativeTo folder: URL, name: String,
                             silenceLimit: Double = CompositionPiece.maximumSilenceSeconds) throws -> [CompositionPiece] {
        var pieces: [CompositionPiece] = []
        // Split on the scalar: "\r\n" is a single Character, which a split on "\n" would miss.
        let lines = text.unicodeScalars.split(separator: "\n", omittingEmptySubsequences: false).map(Substring.init)
        for (index, rawLine) in lines.enumerated() {
            func fail(_ reason: String) -> CommandLineError {
                CommandLineError("\(name), line \(index + 1): \(reason)")
            }
            let line = rawLine.unicodeScalars.last == "\r" ? Substring(rawLine.unicodeScalars.dropLast()) : rawLine
            if let control = line.unicodeScalars.first(where: isForbiddenControl) {
                throw fail("a control character (\(ControlEscaping.escaped(String(control)))) has no place in a plan")
            }
            let words = try split(line, fail: fail)
            guard let first = words.first else { continue }
            if first.text == "silence" && !first.quoted {
                guard words.count == 2 else {
                    throw fail("write silence DURATION, as in 'silence 0.5' or 'silence 22050s'")
                }
                do {
                    pieces.append(.silence(try TimePosition(parsing: words[1].text, maximumSeconds: silenceLimit,
                                                            limitName: "the longest silence")))
                } catch {
                    throw fail("silence \(error)")
                }
                continue
            }
            guard !first.text.isEmpty else { throw fail("an empty file name (\"\")") }
            var rest = Array(words.dropFirst())
            // Effects last: unquoted words with an equals sign.
            var settings: [(key: String, value: String)] = []
            while let last = rest.last, !last.quoted, let equals = last.text.firstIndex(of: "=") {
                settings.insert((String(last.text[..<equals]), String(last.text[last.text.index(after: equals)...])), at: 0)
                rest.removeLast()
            }
            let effects = try Self.effects(settings, fail: fail)
            let reversed = rest.last.map { $0.text == "reverse" && !$0.quoted } ?? false
            if reversed { rest.removeLast() }
            guard rest.count <= 2 else { throw fail("expected FILE [START] [END] [reverse] [EFFECT…], got \(words.count) words") }
            let times = try rest.map { word -> TimePosition in
                do {
                    return try TimePosition(parsing: word.text)
                } catch {
                    throw fail("\(error)")
                }
            }
            let url = first.text.hasPrefix("/") ? URL(fileURLWithPath: first.text) : folder.appendingPathComponent(first.text)
            let range: TimeRange?
            do {
                range = times.isEmpty ? nil : try TimeRange(start: times[0], end: times.count > 1 ? times[1] : nil)
            } catch let ReverseAudioError.range(.invalidRange(reason)) {
                throw fail(reason)
            }
            pieces.append(.file(url, range: range, reversed: reversed, effects: effects))
        }
        guard !pieces.isEmpty else { throw CommandLineError("\(name): the plan has no pieces") }
        return pieces
    }

    /// The effects `settings` name (`gain=DB`, `fade-in=T`, `fade-out=T`, `fade-shape=S`), in
    /// SoX's order: the gain, then the fades.
    static func effects(_ settings: [(key: String, value: String)], fail: (String) -> CommandLineError) throws -> [any AudioEffect] {
        var gain: Double?
        var fades: [(Fade.End, TimePosition)] = []
        var shape = Fade.Shape.logarithmic
        for (key, value) in settings {
            switch key {
            case "gain":
                guard let decibels = Double(value), decibels.isFinite, abs(decibels) <= 200 else {
                    throw fail("gain=\(value): a number of decibels from -200 to 200")
                }
                gain = decibels
            case "fade-in", "fade-out":
                do {
                    fades.append((key == "fade-in" ? .in : .out, try TimePosition(parsing: value)))
                } catch {
                    throw fail("\(key)=\(value): \(error)")
                }
            case "fade-shape":
                guard let chosen = Fade.Shape(rawValue: value) else {
                    throw fail("fade-shape=\(value): one of \(Fade.Shape.allCases.map(\.rawValue).joined(separator: ", "))")
                }
                shape = chosen
            default:
                throw fail("\(key)=…: not an effect (gain=DB, fade-in=T, fade-out=T, fade-shape=S)")
            }
        }
        return (gain.map { [Gain(decibels: $0)] } ?? []) + fades.map { Fade($0.0, length: $0.1, shape: shape) }
    }

    /// A word of a line, and whether any of it was quoted.
    struct Word: Equatable {
        var text: String
        var quoted: Bool
    }

    /// Control characters a plan may not hold: all C0 and C1 controls but the tab (LF and a
    /// CR before it have been taken off as line ends).
    static func isForbiddenControl(_ scalar: Unicode.Scalar) -> Bool {
        let value = scalar.value
        return (value < 0x20 && value != 0x09) || (0x7F...0x9F).contains(value)
    }

    /// The words of a line: separated by spaces and tabs, quoted parts kept whole (a doubled
    /// quote inside quotes is one quote), a comment from an unquoted `#` on.
    static func split(_ line: Substring, fail: (String) -> CommandLineError) throws -> [Word] {
        var words: [Word] = []
        var current: Word?
        var quoted = false
        var characters = line.unicodeScalars.makeIterator()
        var pending: Unicode.Scalar? = nil
        func next() -> Unicode.Scalar? {
            if let scalar = pending {
                pending = nil
                return scalar
            }
            return characters.next()
        }
        while let scalar = next() {
            if quoted {
                if scalar == "\"" {
                    if let following = next() {
                        if following == "\"" {
                            current!.text.unicodeScalars.append("\"")
                            continue
                        }
                        pending = following
                    }
                    quoted = false
                } else {
                    current!.text.unicodeScalars.append(scalar)
                }
                continue
            }
            switch scalar {
            case "\"":
                quoted = true
                if current == nil { current = Word(text: "", quoted: true) } else { current!.quoted = true }
            case " ", "\t":
                if let word = current { words.append(word) }
                current = nil
            case "#":
                if let word = current { words.append(word) }
                return words
            default:
                if current == nil { current = Word(text: "", quoted: false) }
                current!.text.unicodeScalars.append(scalar)
            }
        }
        if quoted { throw fail("a quote is not closed (write a quote inside quotes twice: \"say \"\"hi\"\".wav\")") }
        if let word = current { words.append(word) }
        return words
    }
}
