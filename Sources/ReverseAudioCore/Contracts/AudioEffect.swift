/// Something done to the samples on their way out (a gain, a fade): a decorator over a source,
/// one file each in `Decorators/`. Every front end (`convert`, `reverse`, `trim`, `join`,
/// `compose`, `play`) takes a list of them, and the one chain builder puts them in place, so a
/// new effect is one file plus a line where a front end names it.
///
/// Effects act on what is heard: a fade-in is at the start of the output, reversed or not.
public protocol AudioEffect: Sendable, CustomStringConvertible {
    /// This effect over `source`.
    /// - Parameters:
    ///   - source: the frames, on their way to the output.
    ///   - mirrored: true when the output is these frames reversed (the chain reverses them
    ///     after the effect): what is heard first is the source's end.
    func applied(to source: any PCMSource, mirrored: Bool) throws -> any PCMSource
}

extension PCMSource {
    /// This source with `effect` on what is heard (a ``Gain``, a ``Fade``).
    ///
    /// ```swift
    /// let softer = try source.applying(Gain(decibels: -6)).applying(Fade(.in, length: .seconds(0.5)))
    /// ```
    public func applying(_ effect: any AudioEffect) throws -> any PCMSource {
        try effect.applied(to: self, mirrored: false)
    }
}
