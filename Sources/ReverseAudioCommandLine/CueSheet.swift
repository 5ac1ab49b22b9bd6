import Foundation

/// A cue sheet's tracks, as `split --cue` needs them: each track's number, title, performer and
/// where it starts (its `INDEX 01`, in minutes, seconds and CD frames of 1/75 s).
///
/// Read as the format is written in practice: UTF-8 with or without a byte-order mark, else
/// Latin-1 (older rippers); CRLF or LF line ends; keywords in any case; quoted or bare values;
/// lines it does not use (`REM`, `FLAGS`, `ISRC`, `INDEX 00` pregaps, …) passed over. One audio
/// file's sheet: a second `FILE` line is refused (its times would count from another file).
package struct CueSheet: Sendable, Equatable {
    /// One track.
    package struct Track: Sendable, Equatable {
        package let number: Int
        package let title: String?
        package let performer: String?
        /// Where the track starts, in seconds (its `INDEX 01`).
        package let start: Double
    }

    /// The album's title and performer (the lines before the first track).
    package let title: String?
    package let performer: String?
    package let tracks: [Track]
    /// Warnings about what the sheet lacks or how it was read ("no FILE line", "read as Latin-1").
    package let warnings: [String]

    /// Why a sheet cannot be used.
    package struct Invalid: Error, Sendable, CustomStringConvertible {
        package let description: String
    }

    /// Parses `data`.
    /// - Throws: ``Invalid``, naming the line: a track without `INDEX 01`, an index that is not
    ///   `mm:ss:ff`, tracks out of order, a second `FILE`, no track at all.
    package init(data: Data) throws(Invalid) {
        var warnings: [String] = []
        var bytes = data
        if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { bytes = bytes.dropFirst(3) }
        let text: String
        if let utf8 = String(data: bytes, encoding: .utf8) {
            text = utf8
        } else {
            text = String(decoding: bytes.map { UInt16($0) }, as: UTF16.self)   // Latin-1: each byte its code point
            warnings.append("the cue sheet is not UTF-8: read as Latin-1")
        }
        var albumTitle: String?
        var albumPerformer: String?
        var files = 0
        var tracks: [Track] = []
        var current: (number: Int, title: String?, performer: String?, start: Double?, line: Int)?
        func finish() throws(Invalid) {
            guard let track = current else { return }
            guard let start = track.start else {
                throw Invalid(description: "track \(track.number) (line \(track.line)) has no INDEX 01")
            }
            if let last = tracks.last, start <= last.start {
                throw Invalid(description: "track \(track.number) (line \(track.line)) starts at \(Self.clock(start)), not after track \(last.number) (\(Self.clock(last.start))): the tracks are out of order")
            }
            tracks.append(Track(number: track.number, title: track.title, performer: track.performer, start: start))
            current = nil
        }
        for (offset, rawLine) in text.split(omittingEmptySubsequences: false, whereSeparator: { $0 == "\n" || $0 == "\r\n" || $0 == "\r" }).enumerated() {
            let line = offset + 1
            let words = Self.words(String(rawLine))
            guard let keyword = words.first?.uppercased() else { continue }
            let value = words.count > 1 ? words[1] : nil
            switch keyword {
            case "FILE":
                files += 1
                if files > 1 { throw Invalid(description: "line \(line): a second FILE: split takes a sheet of one audio file") }
            case "TRACK":
                try finish()
                guard let value, let number = Int(value), number > 0 else {
                    throw Invalid(description: "line \(line): TRACK needs a number")
                }
                current = (number, nil, nil, nil, line)
            case "TITLE":
                if current != nil { current?.title = value } else { albumTitle = value }
            case "PERFORMER":
                if current != nil { current?.performer = value } else { albumPerformer = value }
            case "INDEX":
                guard current != nil, words.count >= 3, let number = Int(words[1]) else {
                    throw Invalid(description: "line \(line): INDEX outside a track, or without a number and a time")
                }
                guard let seconds = Self.seconds(words[2]) else {
                    throw Invalid(description: "line \(line): '\(words[2])' is not a cue time (mm:ss:ff, 75 frames a second)")
                }
                if number == 1 { current?.start = seconds }
            default:
                continue
            }
        }
        try finish()
        guard !tracks.isEmpty else { throw Invalid(description: "no TRACK with an INDEX 01") }
        if files == 0 { warnings.append("the cue sheet has no FILE line: its times are taken as the input's") }
        title = albumTitle
        performer = albumPerformer
        self.tracks = tracks
        self.warnings = warnings
    }

    /// A line's words: bare words, or quoted values (quotes removed).
    private static func words(_ line: String) -> [String] {
        var words: [String] = []
        var word = ""
        var quoted = false
        var started = false
        for character in line {
            if character == "\"" {
                quoted.toggle()
                started = true
            } else if !quoted && (character == " " || character == "\t") {
                if started { words.append(word) }
                word = ""
                started = false
            } else {
                word.append(character)
                started = true
            }
        }
        if started { words.append(word) }
        return words
    }

    /// `mm:ss:ff` in seconds (minutes may pass 99; seconds below 60, frames below 75).
    private static func seconds(_ text: String) -> Double? {
        let parts = text.split(separator: ":", omittingEmptySubsequences: false)
        guard parts.count == 3, parts.allSatisfy({ !$0.isEmpty && $0.allSatisfy(\.isASCII) && $0.allSatisfy(\.isNumber) }),
              let minutes = Int(parts[0]), let seconds = Int(parts[1]), let frames = Int(parts[2]),
              minutes < 100_000, seconds < 60, frames < 75 else { return nil }
        return Double(minutes * 60 + seconds) + Double(frames) / 75
    }

    /// A time as `m:ss.fff`, for messages.
    package static func clock(_ seconds: Double) -> String {
        let milliseconds = Int((seconds * 1000).rounded())
        let minutes = milliseconds / 60_000
        let rest = Double(milliseconds % 60_000) / 1000
        return String(format: "%d:%06.3f", minutes, rest)
    }
}
