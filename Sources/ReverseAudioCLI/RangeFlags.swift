import ArgumentParser
import ReverseAudio
import ReverseAudioCommandLine

/// `--start`, `--end` and `--duration`, as `convert`, `trim` and `waveform` take them. Each is
/// read strictly and within ``TimePosition``'s limits where it is parsed (a usage error, 64).
struct RangeFlags: ParsableArguments {
    @Option(help: "Start here: seconds (12.5), [[hh:]mm:]ss[.fff], or frames with an s suffix (66150s); at most 1000000 s.",
            transform: TimeValue.position)
    var start: TimePosition?

    @Option(help: "Stop here (exclusive); same forms as --start.", transform: TimeValue.position)
    var end: TimePosition?

    @Option(help: "Take this much from --start; same forms as --start.", transform: TimeValue.position)
    var duration: TimePosition?

    func validate() throws {
        if end != nil && duration != nil { throw ValidationError("give --end or --duration, not both") }
        do {
            _ = try range()
        } catch {
            throw ValidationError(ErrorReporting.describe(error))
        }
    }

    /// True when any of the three is given.
    var isGiven: Bool { start != nil || end != nil || duration != nil }

    /// The range, or nil for the whole file.
    func range() throws -> TimeRange? {
        isGiven ? try TimeRange(start: start, end: end, duration: duration) : nil
    }
}
