import Foundation

/// The one byte range a `Range` request header asks of a body of known size (RFC 9110 §14.2).
///
/// One range is served (what `<audio>` and `curl -r` send); a header of several, or one that
/// does not parse, is ignored and the whole body is sent, as the RFC allows.
package enum ByteRange: Equatable, Sendable {
    /// No usable range: send all of it (200).
    case whole
    /// These bytes, inclusive (206).
    case part(ClosedRange<Int>)
    /// It starts at or past the end (416).
    case unsatisfiable

    /// The range `header` asks of a body of `size` bytes.
    package init(header: String?, size: Int) {
        guard let header, header.hasPrefix("bytes="), !header.contains(",") else {
            self = .whole
            return
        }
        let bounds = header.dropFirst("bytes=".count).split(separator: "-", maxSplits: 1, omittingEmptySubsequences: false)
            .map { $0.trimmingCharacters(in: .whitespaces) }
        guard bounds.count == 2, bounds.allSatisfy({ $0.allSatisfy(\.isASCII) && $0.allSatisfy(\.isNumber) }) else {
            self = .whole
            return
        }
        if bounds[0].isEmpty {
            // A suffix: the last N bytes (`bytes=-500`).
            guard let length = Int(bounds[1]) else {
                self = bounds[1].isEmpty ? .whole : .part(0...(size - 1))  // more digits than Int holds: all of it
                if size == 0 { self = .unsatisfiable }
                return
            }
            self = length == 0 || size == 0 ? .unsatisfiable : .part(max(0, size - length)...(size - 1))
            return
        }
        guard let first = Int(bounds[0]) else {
            self = .unsatisfiable  // a start beyond any Int is beyond the end
            return
        }
        guard first < size else {
            self = .unsatisfiable
            return
        }
        if bounds[1].isEmpty {
            self = .part(first...(size - 1))
            return
        }
        let last = Int(bounds[1]).map { min($0, size - 1) } ?? (size - 1)
        self = last >= first ? .part(first...last) : .whole
    }
}
