import ReverseAudioCore

/// How a job reads a file, decided in one place: from the job (its ``ChainRecipe`` and the
/// threads it may use) how the file is opened (``OpenPlan``), and, once it is open, from the
/// file's facts whether readers side by side share the work or one reader does, and why
/// (``OneReaderReason``). The scheduler takes that decision as it is given.
package struct ReadPlan {
    /// What the job asks of the file.
    package let recipe: ChainRecipe
    /// The threads the job may read it on.
    package let threads: Int

    package init(recipe: ChainRecipe, threads: Int) {
        self.recipe = recipe
        self.threads = max(1, threads)
    }

    /// Readers side by side: a reversal of a whole file on several threads.
    private var readersSideBySide: Bool { threads > 1 && recipe.reversed && recipe.range == nil }

    /// How the file is opened. All of a file is decoded, so the decode finds any frame the
    /// decoder rejects (readers side by side each on one thread, which report them): the FLAC
    /// check of every frame's CRC is left to it. (A packet larger than STREAMINFO's largest
    /// frame is still decoded alone first: see ``FLACDamageScan``.)
    package var opening: OpenPlan {
        var plan = OpenPlan(resolvingLength: recipe.needsFileLength)
        plan.checksFrames = recipe.range != nil
        plan.readersSideBySide = readersSideBySide
        plan.range = recipe.range
        plan.seeks = threads > 1 || recipe.range != nil
        return plan
    }

    /// Whether `chain` is read by several readers at once, each exactly, or by one and why; for
    /// one reader, what readers side by side would have checked is resolved first.
    func splitting(_ chain: AudioChain) throws -> Splitting {
        let splitting = try decide(chain)
        if case .single = splitting { try chain.file.resolveForOneReader() }
        return splitting
    }

    private func decide(_ chain: AudioChain) throws -> Splitting {
        guard threads > 1 else { return .single(reason: .oneThreadAsked) }
        let file = chain.file
        // The chain's recipe: the rate an output's codec takes is in it.
        if let sampleRate = chain.recipe.sampleRate, sampleRate != file.format.sampleRate {
            return .single(reason: .sampleRateConverted)
        }
        guard file.readersRepaySetUp(for: chain.range) else { return .single(reason: .shortRange) }
        _ = try file.resolveLengthKeepingIndex()
        if let refusal = file.splitRefusal { return .single(reason: refusal) }
        if file.readsStoredSamples && !chain.splitsStoredSamples { return .single(reason: .storedSamples) }
        // The job's own reader takes segments beside the others: on one decoder thread, as they.
        try file.decodeOnOneThread()
        return .readers(ChainReaders(chain: chain))
    }
}
