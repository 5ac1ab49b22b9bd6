import ArgumentParser
import ReverseAudio
import ReverseAudioCommandLine

/// `--gain`, `--fade-in`, `--fade-out` and `--fade-shape`, as every command that writes or
/// plays audio takes them: the one place a front end gets its effects from.
struct EffectFlags: ParsableArguments {
    @Option(help: "Change the level by this many decibels (negative: quieter), as sox gain.")
    var gain: Double?

    @Option(help: "Fade in over the start of what is heard: seconds, [[hh:]mm:]ss[.fff], or frames with an s suffix.",
            transform: TimeValue.position)
    var fadeIn: TimePosition?

    @Option(help: "Fade out over the end of what is heard; same forms as --fade-in.", transform: TimeValue.position)
    var fadeOut: TimePosition?

    @Option(help: "The fades' curve, as SoX's: t linear, q quarter sine, h half sine, l logarithmic, p inverted parabola.")
    var fadeShape: Fade.Shape = .logarithmic

    func validate() throws {
        if let gain, !gain.isFinite || abs(gain) > 200 { throw ValidationError("--gain must be between -200 and 200 dB") }
    }

    /// The effects asked for, in SoX's order: the gain, then the fades.
    var effects: [any AudioEffect] {
        var list: [any AudioEffect] = []
        if let gain { list.append(Gain(decibels: gain)) }
        if let fadeIn { list.append(Fade(.in, length: fadeIn, shape: fadeShape)) }
        if let fadeOut { list.append(Fade(.out, length: fadeOut, shape: fadeShape)) }
        return list
    }
}

extension Fade.Shape: ExpressibleByArgument {}
