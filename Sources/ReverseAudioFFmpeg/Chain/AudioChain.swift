import Foundation
import ReverseAudioCore

/// What a front end asks of one file: the part, the samples, the channels, the effects and the
/// direction. Every command (`convert`, `reverse`, `trim`, `join`, `compose`, `play`,
/// `waveform`, `video`) describes its input this way, and ``AudioChain`` builds it.
package struct ChainRecipe {
    /// The part of the file, on its own timeline; nil for all of it.
    package var range: TimeRange?
    /// The sample format delivered; nil keeps the file's own.
    package var sampleFormat: SampleFormat?
    /// The rate delivered (swresample, as `ffmpeg -ar`); nil keeps the file's, or asks
    /// ``writtenRate`` for it.
    package var sampleRate: Int?
    /// The rate an output takes for a file of a rate (a codec of few rates, such as Opus,
    /// takes the nearest it has), when no ``sampleRate`` is asked for.
    package var writtenRate: (@Sendable (Int) -> Int)?
    /// The channels kept.
    package var channels: ChannelSelection
    /// Effects on what is heard, in order.
    package var effects: [any AudioEffect]
    /// Heard backwards.
    package var reversed: Bool
    /// Frames per reversed block; nil for the file's natural block (a decoded packet).
    package var blockFrames: Int?

    package init(range: TimeRange? = nil, sampleFormat: SampleFormat? = nil, sampleRate: Int? = nil, channels: ChannelSelection = .all,
                 effects: [any AudioEffect] = [], reversed: Bool = false, blockFrames: Int? = nil) {
        self.range = range
        self.sampleFormat = sampleFormat
        self.sampleRate = sampleRate
        self.channels = channels
        self.effects = effects
        self.reversed = reversed
        self.blockFrames = blockFrames
    }

    /// True when the chain needs the file's length: all of the file, or a range to its end, is
    /// read (a reversal places by it, progress counts by it); a range with an end does not.
    package var needsFileLength: Bool { range.map { $0.end == nil && $0.duration == nil } ?? true }
}

/// The one chain builder: a file's decode, converted (sample format, rate, mix-down), cut to a
/// range, one channel taken, its effects, in that order, as one chain of sources, the way every
/// front end reads a file. A reversal is the scheduler's (``Scheduler/transfer(_:reversed:into:)``):
/// the chain is read forwards, its effects placed where they are heard (mirrored), and the
/// scheduler reads it on as many threads as the file allows, each reader the same chain over
/// another open of the file (``SegmentReaders``).
package final class AudioChain {
    /// The file's decode, at the root of the chain.
    package let file: AudioFileSource
    /// The chain over the file, as built.
    private let built: Built
    /// The chain read forwards.
    package var source: any PCMSource { built.source }
    /// What the chain changes on the way ("sample format f32 → s16", "channel 1 of 2 only").
    package var conversions: [String] { built.conversions }
    /// The range of the file's own frames, when one is asked for.
    package var range: Range<Int64>? { built.range }
    /// What was asked.
    package var recipe: ChainRecipe { built.recipe }
    /// Split PCM read straight from the file too (tests put seams in it; for speed it stays on
    /// one thread, see ``OneReaderReason/storedSamples``).
    package var splitsStoredSamples = false

    /// Opens `url` and builds the chain `recipe` asks for; the length is found on the same open
    /// of the file when the chain needs it (all of a file, or a range to its end).
    /// - Parameter threads: the threads the job may read it on. A reversal of a whole file on
    ///   several leaves to its readers what they check as they decode: a FLAC file's frame
    ///   positions (no scan first), an MP3's packet count (its tag's taken, the index built by
    ///   the first reader to seek while the others decode): ``AudioFileSource/resolveForOneReader()``.
    /// - Parameter facts: what an earlier open of the same file learnt (``StreamFacts``): taken
    ///   instead of resolving the length again.
    package convenience init(url: URL, recipe: ChainRecipe, cancellation: CancellationFlag, threads: Int = 1,
                             facts: StreamFacts? = nil) throws {
        if let facts {
            try self.init(file: try AudioFileSource(url: url, facts: facts, cancellation: cancellation), recipe: recipe)
            return
        }
        let plan = ReadPlan(recipe: recipe, threads: threads)
        try self.init(file: try AudioFileSource(url: url, cancellation: cancellation, plan: plan.opening), recipe: recipe)
    }

    /// Builds the chain `recipe` asks for over `file`, which nothing has read yet.
    package init(file: AudioFileSource, recipe: ChainRecipe) throws {
        self.file = file
        built = try Built(root: file, name: file.name, recipe: recipe, length: { file.length.frames }) { conversion in
            // In the decoder's own interleaving pass: one swresample call.
            file.adopt(conversion) ? file.conversions : nil
        }
    }

    /// A chain built over any source: the converted, cut, channel-taken source with its
    /// effects, and what it changed.
    struct Built {
        let source: any PCMSource
        let conversions: [String]
        let range: Range<Int64>?
        let recipe: ChainRecipe
        /// Effects not yet applied: those of a reversal whose length only reading tells,
        /// applied to the reversal itself.
        let effectsAfterReversal: [any AudioEffect]

        /// Builds `recipe` over `root`, whose frames `length` tells when known; `adopt` lets
        /// the root take a sample-format conversion or mix-down itself, returning what it
        /// converts (nil: it cannot).
        init(root: any PCMSource, name: String, recipe asked: ChainRecipe, length: () -> Int64?,
             adopt: (AudioFileSource.Conversion) -> [String]?) throws {
            let rootFormat = root.format
            let range = try asked.range.map { try $0.frames(atRate: rootFormat.sampleRate, path: name, length: length) }
            self.range = range
            var recipe = asked
            if recipe.sampleRate == nil, let writtenRate = recipe.writtenRate, writtenRate(rootFormat.sampleRate) != rootFormat.sampleRate {
                recipe.sampleRate = writtenRate(rootFormat.sampleRate)
            }
            self.recipe = recipe
            let mixes = recipe.channels == .mix
            let converts = recipe.sampleFormat.map { $0 != rootFormat.sampleFormat } ?? false
            let resamples = recipe.sampleRate.map { $0 != rootFormat.sampleRate } ?? false
            var conversions: [String] = []
            var source = root
            if resamples {
                // A range counts the root's own frames: it is cut before the rate changes.
                if let range { source = source.range(range, name: name) }
                let converter = try source.converted(to: recipe.sampleFormat, sampleRate: recipe.sampleRate, mixingToMono: mixes, name: name)
                conversions = converter.conversions
                source = converter
            } else {
                if converts || mixes {
                    if let adopted = adopt(AudioFileSource.Conversion(sampleFormat: recipe.sampleFormat, mixesToMono: mixes)) {
                        conversions = adopted
                    } else {
                        let converter = try source.converted(to: recipe.sampleFormat, mixingToMono: mixes, name: name)
                        conversions = converter.conversions
                        source = converter
                    }
                }
                if let range { source = source.range(range, name: name) }
            }
            if let channel = recipe.channels.extractedChannel {
                source = try source.channel(channel, name: name)
                conversions.append("channel \(channel) of \(rootFormat.channelCount) only")
            }
            // Effects act on what is heard: before a reversal, on the mirrored timeline, when the
            // length is known; otherwise on the reversal itself.
            let mirrorsEffects = recipe.reversed && source.length.frames != nil
            if let heard = source.length.frames {
                try Fade.checkFit(of: recipe.effects, within: heard, sampleRate: source.format.sampleRate, name: name)
            }
            if !recipe.reversed || mirrorsEffects {
                for effect in recipe.effects {
                    source = try AudioChain.naming(name) { try effect.applied(to: source, mirrored: recipe.reversed) }
                }
                effectsAfterReversal = []
            } else {
                effectsAfterReversal = recipe.effects
            }
            self.source = source
            self.conversions = conversions
        }

        /// What the scheduler runs for this chain split as `splitting` says (see
        /// ``AudioChain/job(threads:scheduler:)``).
        func job(splitting: Splitting, blockFrames: Int?, name: String, scheduler: Scheduler) throws
            -> (input: Scheduler.Input, reversed: Bool) {
            let input = Scheduler.Input(source: source, splitting: splitting, blockFrames: recipe.blockFrames ?? blockFrames, name: name)
            guard recipe.reversed, !effectsAfterReversal.isEmpty else { return (input, recipe.reversed) }
            let stored = scheduler.reversal(of: input)
            // Stored now: its length, which a fade-out needs, is known once the input is read.
            try stored.seek(to: 0, endingAt: nil)
            if let heard = stored.length.frames {
                try Fade.checkFit(of: effectsAfterReversal, within: heard, sampleRate: stored.format.sampleRate, name: name)
            }
            var reversal: any PCMSource = stored
            for effect in effectsAfterReversal {
                reversal = try AudioChain.naming(name) { try effect.applied(to: reversal, mirrored: false) }
            }
            return (Scheduler.Input(source: reversal, splitting: .single(reason: .lengthUnknown), name: name), false)
        }
    }

    /// What the scheduler runs for `recipe` over a caller's `source` (any ``PCMSource``), read
    /// by one reader, and what the chain changes on the way.
    package static func job(over source: any PCMSource, name: String, recipe: ChainRecipe, scheduler: Scheduler) throws
        -> (input: Scheduler.Input, reversed: Bool, conversions: [String]) {
        let built = try Built(root: source, name: name, recipe: recipe, length: { source.length.frames }, adopt: { _ in nil })
        let (input, reversed) = try built.job(splitting: .single(reason: .callersSource), blockFrames: nil, name: name,
                                              scheduler: scheduler)
        return (input, reversed, built.conversions)
    }

    /// Problems met so far that did not stop the decode.
    package var warnings: [ReverseAudioWarning] { file.warnings }

    /// Why nothing tells the length before decoding, when nothing does.
    package var lengthUnknownReason: String? {
        source.format.sampleRate != file.format.sampleRate ? "the sample rate is converted" : file.lengthUnknownReason
    }

    /// What the scheduler runs: the chain, how it can be split on `threads` threads, and
    /// whether the scheduler reverses it (false once the chain is its own reversal: a pipe's,
    /// whose effects follow it).
    package func job(threads: Int, scheduler: Scheduler) throws -> (input: Scheduler.Input, reversed: Bool) {
        let splitting = try ReadPlan(recipe: recipe, threads: threads).splitting(self)
        return try built.job(splitting: splitting, blockFrames: file.blockFrames, name: file.name, scheduler: scheduler)
    }

    /// The chain as it is heard, read in order: reversed through a temporary file when asked
    /// (a reversed piece of a composition, a video's audio, the seed's blocks).
    package func reader(scheduler: Scheduler) throws -> any PCMSource {
        let (input, reversed) = try job(threads: scheduler.threads, scheduler: scheduler)
        return reversed ? scheduler.reversal(of: input) : input.source
    }

    /// `work`, its unnamed errors naming the file.
    fileprivate static func naming<Result>(_ name: String, _ work: () throws -> Result) throws -> Result {
        do {
            return try work()
        } catch ReverseAudioError.input(.lengthUnknown(path: "", let reason)) {
            throw ReverseAudioError.input(.lengthUnknown(path: name, reason: reason))
        }
    }
}

/// The readers of a chain for the scheduler: the chain itself, and the same chain over more
/// opens of its file, which share the length and packet index the first open found.
final class ChainReaders: SegmentReaders {
    private let chain: AudioChain

    init(chain: AudioChain) {
        self.chain = chain
    }

    var main: SegmentReader {
        let file = chain.file
        return SegmentReader(source: chain.source, problems: { file.problemCount }, marks: { file.segmentMarks })
    }

    func open() throws -> SegmentReader? {
        let reader = try chain.file.openReader()
        let copy = try AudioChain(file: reader, recipe: chain.recipe)
        guard copy.source.format == chain.source.format, reader.splitRefusal == nil else { return nil }
        return SegmentReader(source: copy.source, problems: { reader.problemCount }, marks: { reader.segmentMarks })
    }

    func rewindMain() throws {
        try chain.file.restart()
        try chain.source.seek(to: 0, endingAt: nil)
    }
}
