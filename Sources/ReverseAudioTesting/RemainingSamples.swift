import ReverseAudioCore

extension PCMSource {
    /// Every sample from where the source is to its end, interleaved, as `Sample` (the type of
    /// its sample format), read `step` frames at a time: what a test compares with the frames it
    /// expects. Reading in steps of another size than the source's chunks checks that the
    /// frames do not depend on how they are asked for.
    public func remainingSamples<Sample>(as type: Sample.Type = Int16.self, step: Int = 1000) throws -> [Sample] {
        var samples: [Sample] = []
        while let chunk = try read(maximumFrames: step) {
            samples += chunk.samples(as: Sample.self)
        }
        return samples
    }
}
