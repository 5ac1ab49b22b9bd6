import Foundation
import ReverseAudio

/// The one line `play` keeps redrawing on a terminal: direction arrow, title, position /
/// duration, the loop, and a bar with the cursor and the loop markers.
///
///     >> forward  Song — Artist  01:23.4 / 04:56.7  loop 00:10.0-00:12.0  [=====[==|---]-----]
struct PlayStatusLine {
    /// "Title — Artist" from the tags, else the file name.
    let title: String

    init(info: AudioInfo, path: String) {
        let tags = Dictionary(info.tags.map { ($0.key.lowercased(), $0.value) }, uniquingKeysWith: { first, _ in first })
        let title = tags["title"]?.trimmingCharacters(in: .whitespaces) ?? ""
        let artist = tags["artist"]?.trimmingCharacters(in: .whitespaces) ?? ""
        switch (title.isEmpty, artist.isEmpty) {
        case (false, false): self.title = "\(title) — \(artist)"
        case (false, true): self.title = title
        default: self.title = URL(fileURLWithPath: path).lastPathComponent
        }
    }

    /// The line for `status`, at most `width` characters.
    func text(_ status: PlaybackStatus, markers: LoopMarkers, width: Int) -> String {
        let state = status.state
        let rate = status.sampleRate
        var arrow = state.direction == .forward ? ">> forward" : "<< reverse"
        if !state.isPlaying { arrow += " (paused)" }
        let time = "\(Self.clock(state.position, rate)) / \(Self.clock(state.frameCount, rate))"
        var loop = ""
        if markers.isOn || markers.start != nil || markers.end != nil {
            let lower = Self.clock(markers.start ?? 0, rate)
            let upper = Self.clock(markers.end ?? state.frameCount, rate)
            loop = "  loop \(lower)-\(upper)" + (markers.region(frameCount: state.frameCount) == nil ? " off" : "")
        }
        let fixed = "\(arrow)    \(time)\(loop)  []"
        let room = max(width - fixed.count, 0)
        let barWidth = max(min(room / 2, 40), min(room, 10))
        let titleWidth = max(room - barWidth, 0)
        var title = self.title
        if title.count > titleWidth { title = titleWidth > 1 ? String(title.prefix(titleWidth - 1)) + "…" : "" }
        let bar = Self.bar(width: barWidth, status: status, markers: markers)
        let line = "\(arrow)  \(title)  \(time)\(loop)  [\(bar)]"
        return String(line.prefix(max(width, 0)))
    }

    /// "mm:ss.t", or "h:mm:ss.t" from an hour on.
    static func clock(_ frame: Int64, _ rate: Int) -> String {
        let tenths = Int64((Double(frame) / Double(max(rate, 1)) * 10).rounded(.down))
        let seconds = tenths / 10
        let (hours, minutes) = (seconds / 3600, seconds / 60 % 60)
        let head = hours > 0 ? String(format: "%lld:%02lld", hours, minutes) : String(format: "%02lld", minutes)
        return head + String(format: ":%02lld.%lld", seconds % 60, tenths % 10)
    }

    private static func bar(width: Int, status: PlaybackStatus, markers: LoopMarkers) -> String {
        guard width > 0 else { return "" }
        let total = max(status.state.frameCount, 1)
        func column(_ frame: Int64) -> Int { min(Int(Double(frame) / Double(total) * Double(width)), width - 1) }
        let cursor = column(status.state.position)
        var cells = (0..<width).map { $0 < cursor ? Character("=") : Character("-") }
        if let start = markers.start { cells[column(start)] = "[" }
        if let end = markers.end { cells[column(end)] = "]" }
        cells[cursor] = "|"
        return String(cells)
    }
}
