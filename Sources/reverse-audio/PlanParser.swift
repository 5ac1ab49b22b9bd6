import Foundation
import ReverseAudio

/// The plan file of `compose`: one piece per line, `FILE [START] [END] [reverse]` or
/// `silence DURATION`; `#` starts a comment; a file name with spaces goes in double quotes.
/// Times take every ``TimePosition`` form; a relative file name is relative to the plan's folder.
enum PlanParser {
    /// The pieces of `text`.
    /// - Parameters:
    ///   - text: the plan.
    ///   - folder: the folder relative file names are in.
    ///   - name: the plan's name, for messages.
    /// - Throws: ``CommandLineError`` naming the line of a bad piece.
    static func parse(_ text: String, relativeTo folder: URL, name: String) throws -> [CompositionPiece] {
        var pieces: [CompositionPiece] = []
        for (index, raw) in text.components(separatedBy: .newlines).enumerated() {
            let line = raw.split(separator: "#", maxSplits: 1, omittingEmptySubsequences: false).first.map(String.init) ?? ""
            let words = try split(line, name: name, line: index + 1)
            guard let first = words.first else { continue }
            func fail(_ reason: String) -> CommandLineError {
                CommandLineError("\(name), line \(index + 1): \(reason)")
            }
            if first == "silence" {
                guard words.count == 2, let length = TimePosition(words[1]) else {
                    throw fail("write silence DURATION, as in 'silence 0.5' or 'silence 22050s'")
                }
                pieces.append(.silence(length))
                continue
            }
            var rest = Array(words.dropFirst())
            let reversed = rest.last == "reverse"
            if reversed { rest.removeLast() }
            guard rest.count <= 2 else { throw fail("expected FILE [START] [END] [reverse], got \(words.count) words") }
            let times = try rest.map { word -> TimePosition in
                guard let time = TimePosition(word) else { throw fail("'\(word)' is not a time (12.5, 1:02.5, 66150s)") }
                return time
            }
            let url = first.hasPrefix("/") ? URL(fileURLWithPath: first) : folder.appendingPathComponent(first)
            let range: TimeRange?
            do {
                range = times.isEmpty ? nil : try TimeRange(start: times[0], end: times.count > 1 ? times[1] : nil)
            } catch let ReverseAudioError.invalidRange(reason) {
                throw fail(reason)
            }
            pieces.append(.file(url, range: range, reversed: reversed))
        }
        guard !pieces.isEmpty else { throw CommandLineError("\(name): the plan has no pieces") }
        return pieces
    }

    /// Words of a line, with "double quoted" words kept whole.
    private static func split(_ line: String, name: String, line number: Int) throws -> [String] {
        var words: [String] = []
        var current = ""
        var quoted = false
        var inWord = false
        for character in line {
            if character == "\"" {
                quoted.toggle()
                inWord = true
            } else if character.isWhitespace && !quoted {
                if inWord { words.append(current) }
                current = ""
                inWord = false
            } else {
                current.append(character)
                inWord = true
            }
        }
        if quoted { throw CommandLineError("\(name), line \(number): a quote is not closed") }
        if inWord { words.append(current) }
        return words
    }
}
