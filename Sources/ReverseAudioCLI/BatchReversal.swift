import Foundation
import ReverseAudio
import ReverseAudioBatch

/// Reverses (and optionally verifies) a list of files, up to `jobs` at a time. A file that
/// fails is reported and the rest go on; a failure of the output side (a full disk, a folder it
/// may not write in) stops the whole batch (``Stopped``), as cancellation does. A file whose
/// output is complete and current (its resume record says so) is skipped without being opened.
/// Results are reported in input order whatever order the files finish in.
struct BatchReversal: Sendable {
    let inputs: [SupportedAudioFiles.Found]
    /// Each input's output path under `directory`, and the earlier input that already has it.
    let outputs: [(output: String, clash: String?)]
    let directory: URL
    let options: ConversionOptions
    let verify: Bool
    let verbose: Bool
    /// With `--all-formats`, a file FFmpeg cannot read is skipped rather than failed.
    let allFormats: Bool
    let jobs: Int
    let json: Bool
    let display: ProgressDisplay
    let bookkeeping: BatchBookkeeping

    struct Report: Sendable {
        let table: String
        let failures: Int
        let skipped: [(path: String, reason: String)]
        /// Inputs whose outputs were complete and current, so not done again.
        let upToDate: Int
    }

    /// The batch stopped because the output side failed (see `BatchFailure.stopsTheBatch`).
    struct Stopped: Error {
        let error: ReverseAudioError
    }

    /// What one file's reversal (and verification) produced.
    private enum Outcome: Sendable {
        case done(ConversionResult, mismatch: String?)
        case upToDate(BatchRecord)
        case failed(any Error)
        case skipped(String)
    }

    func run() async throws -> Report {
        let outcomes = try await processAll()
        var table = verify
            ? TextTable("file", "format", "duration", "frames", "block", "verified", "output")
            : TextTable("file", "format", "duration", "frames", "block", "output")
        var failures = 0
        var upToDate = 0
        var skipped: [(path: String, reason: String)] = []
        for (index, outcome) in outcomes.enumerated() {
            let label = inputs[index].url.displayPath
            switch outcome {
            case .done(let result, let mismatch):
                result.warnings.forEach(ErrorReporting.printWarning)
                if let mismatch {
                    failures += 1
                    ErrorReporting.printError(ReverseAudioError.output(.verificationFailed(path: label, reason: mismatch)))
                }
                if json {
                    Console.out(BatchReversal.jsonLine(result, label: label, verified: verify ? mismatch == nil : nil))
                } else {
                    let format = "\(result.source.container.split(separator: ",").first ?? "") / \(result.source.codec)"
                    let seconds = String.seconds(Double(result.frames) / Double(result.format.sampleRate))
                    let output = result.output.relativePath
                    let columns = [label, format, seconds, "\(result.frames)", "\(result.blockFrames)"]
                    table.add(verify ? columns + [mismatch == nil ? "yes" : "NO", output] : columns + [output])
                }
                if verbose { ConversionSummary.details(result).forEach { Console.error("\(label):\($0)") } }
            case .failed(let error):
                failures += 1
                ErrorReporting.printError(error)
                if json {
                    Console.out(JSONResultOption.line(ConversionSummary.failedJSON(error, input: label,
                                                                                   output: directory.appendingPathComponent(outputs[index].output).relativePath)))
                } else {
                    table.add([label, "FAILED (see the error above)"])
                }
            case .upToDate(let record):
                upToDate += 1
                if json {
                    Console.out(JSONResultOption.line(["input": label, "output": directory.appendingPathComponent(record.output).relativePath,
                                                       "status": "skipped", "reason": "up to date"]))
                }
                if verbose { Console.error("reverse-audio: up to date: \(label) -> \(record.output)") }
            case .skipped(let reason):
                skipped.append((label, reason))
            }
        }
        return Report(table: table.render(), failures: failures, skipped: skipped, upToDate: upToDate)
    }

    /// Runs every file, `jobs` at a time, and returns the outcomes in input order.
    private func processAll() async throws -> [Outcome] {
        var outcomes = [Outcome?](repeating: nil, count: inputs.count)
        try await withThrowingTaskGroup(of: (Int, Outcome).self) { group in
            var next = 0
            func startNext() {
                guard next < inputs.count else { return }
                let index = next
                next += 1
                group.addTask { (index, try await process(index)) }
            }
            for _ in 0..<max(1, jobs) { startNext() }
            while let (index, outcome) = try await group.next() {
                outcomes[index] = outcome
                startNext()
            }
        }
        display.clear()
        return outcomes.map { $0 ?? .skipped("not run") }
    }

    /// The input's size and time for the resume decision; nil for a URL (whose state this
    /// run cannot know without fetching it: it is written every time, as a new input is).
    private static func state(of input: URL) -> ResumeDecision.FileState? {
        input.isFileURL ? ResumeDecision.FileState(path: input.path) : nil
    }

    private func process(_ index: Int) async throws -> Outcome {
        let input = inputs[index].url
        let label = input.displayPath
        let (relativeOutput, clash) = outputs[index]
        let outputURL = directory.appendingPathComponent(relativeOutput)
        if let clash { return try refuseClash(with: clash, input: input, output: relativeOutput) }
        // Decided and done under the output's claim: another run of this batch doing it now is
        // waited for, and its output then found done.
        let claim = try await claimOutput(relativeOutput)
        defer { claim.release() }
        // The resume decision reads only sizes, times and the small record: no media is opened.
        let now = Self.state(of: input)
        let existing = ResumeDecision.FileState(path: outputURL.path)
        let kept: BatchRecord?
        do {
            kept = existing == nil ? nil : try bookkeeping.state.record(for: relativeOutput)
        } catch let error as ReverseAudioError {
            // The state folder is the output side: every input would meet the same.
            throw Stopped(error: error)
        }
        let decision = now.map {
            ResumeDecision.decide(record: kept, input: $0, output: existing, options: bookkeeping.options,
                                  version: bookkeeping.version, overwrite: bookkeeping.overwrite)
        } ?? .write
        var options = self.options
        switch decision {
        case .skip:
            if var record = kept {
                record.status = .skipped
                // Named as this run names them, whatever the record was given.
                record.input = label
                record.output = relativeOutput
                try keep(record, asState: false)
                return .upToDate(record)
            }
        case .write, .refuse:
            options.overwrite = false
        case .replace(let reason):
            options.overwrite = true
            if verbose { Console.error("reverse-audio: \(label): writing \(relativeOutput) again: \(reason)") }
        }
        // Recorded before the work: after a kill, the output under this name is known to be ours.
        if decision != .refuse, now != nil {
            try keep(bookkeeping.record(input: label, now: now, output: relativeOutput, status: .started), asState: true, report: false)
        }
        // The audio's length for the speed figure, from the conversion's own open of the input.
        options.opened = { seconds in display.setSeconds(seconds, index: index + 1) }
        let progress = display.handler(file: label, index: index + 1, count: inputs.count)
        defer { display.finished(index: index + 1) }
        // Set once the output is in place under its name: from then on it is never without a record.
        var published = false
        do {
            let folder = outputURL.deletingLastPathComponent()
            try ProcessCleanup.createFolder(folder)
            let name = inputs[index].outputStem
            let result: ConversionResult
            var mismatch: String?
            if verify {
                let report = try await RoundTrip.run(input, into: folder, name: name, options: options, progress: progress)
                result = report.reversed
                mismatch = report.mismatch
            } else {
                result = try await AudioConverter.convert(input, to: outputURL, options: options, progress: progress)
            }
            published = true
            var record = bookkeeping.record(input: label, now: now, output: relativeOutput, status: mismatch == nil ? .done : .failed)
            record.outputSize = ResumeDecision.FileState(path: outputURL.path)?.size
            let path = outputURL.path
            // Off the cooperative pool, and stopped by a signal like the rest of the work.
            record.sha256 = try await BlockingWork.run { flag in try FileDigest.sha256(ofFileAt: path, isCancelled: { flag.isCancelled }) }
            record.frames = result.frames
            record.seconds = Double(result.frames) / Double(result.format.sampleRate)
            if let mismatch {
                record.errorKind = "verificationFailed"
                record.error = mismatch
            }
            try keep(record, asState: true)
            return .done(result, mismatch: mismatch)
        } catch is CancellationError {
            // Stopped by a signal: a new output leaves no trace, not even its record. One already
            // published (the signal came while its digest was taken) keeps the record made before
            // the work, which says it is ours and unfinished: a rerun writes it again, where
            // without a record it would refuse it as another's ("output already exists").
            if decision == .write && !published { unlink(bookkeeping.state.recordPath(for: relativeOutput)) }
            throw CancellationError()
        } catch let stopped as Stopped {
            throw stopped
        } catch {
            return try failed(error, input: input, now: now, output: relativeOutput, decision: decision)
        }
    }

    /// An input whose output name an earlier input's output has: failed like any other input,
    /// its line in the manifest says so (no state record: the output under that name is the
    /// earlier input's).
    private func refuseClash(with clash: String, input: URL, output relativeOutput: String) throws -> Outcome {
        let outputURL = directory.appendingPathComponent(relativeOutput)
        let error = ReverseAudioError.output(.cannotCreateOutput(
            path: outputURL.displayPath, reason: "it is also the output of \(clash), an earlier input; name their folders instead, or list them with --files-from as relative paths"))
        var record = bookkeeping.record(input: input.displayPath, now: Self.state(of: input), output: relativeOutput, status: .failed)
        record.errorKind = BatchFailure.kind(of: error)
        record.error = ErrorReporting.describe(error)
        try keep(record, asState: false)
        return .failed(error)
    }

    /// What an input whose work failed with `error` becomes: its record and manifest line, a
    /// skip (an input that holds no audio, in a walk of every format), or the batch stopped (a
    /// failure every later input would meet: ``BatchFailure/stopsTheBatch(_:)``).
    private func failed(_ error: any Error, input: URL, now: ResumeDecision.FileState?, output relativeOutput: String,
                        decision: ResumeDecision) throws -> Outcome {
        let label = input.displayPath
        let reported = error as? ReverseAudioError
        var record = bookkeeping.record(input: label, now: now, output: relativeOutput, status: .failed)
        record.errorKind = reported.map(BatchFailure.kind(of:)) ?? String(describing: type(of: error))
        record.error = ErrorReporting.describe(error)
        if let reported, BatchFailure.stopsTheBatch(reported) {
            // No output was published: no record of one. The manifest may be on the full disk
            // too, so its line is only attempted.
            if decision == .write { unlink(bookkeeping.state.recordPath(for: relativeOutput)) }
            try? bookkeeping.report(record)
            throw Stopped(error: reported)
        }
        var outcome = Outcome.failed(error)
        if allFormats, let reported {
            if case .input(.notMedia) = reported { outcome = .skipped("FFmpeg reads no audio in it") }
            if case .input(.noAudioStream) = reported { outcome = .skipped("it has no audio stream") }
            if case .skipped = outcome { record.status = .ignored }
        }
        // A replaced output is still ours (its record stays, so a rerun replaces it again);
        // a new one that failed leaves no output, and so no record.
        if case .replace = decision {
            try keep(record, asState: true)
        } else {
            if decision != .refuse { unlink(bookkeeping.state.recordPath(for: relativeOutput)) }
            try keep(record, asState: false)
        }
        return outcome
    }

    /// The claim on `relativeOutput`, waiting (and stopped by a signal) while another run holds it.
    private func claimOutput(_ relativeOutput: String) async throws -> OutputClaim {
        while true {
            do {
                if let claim = try bookkeeping.state.claim(relativeOutput) { return claim }
            } catch let error as ReverseAudioError {
                throw Stopped(error: error)
            }
            try await Task.sleep(nanoseconds: 50_000_000)
        }
    }

    /// Saves `record` as its output's resume record (`asState`) and appends it to the manifest
    /// (`report`); a failure there is the output side's, and stops the batch.
    private func keep(_ record: BatchRecord, asState: Bool, report: Bool = true) throws {
        do {
            if asState { try bookkeeping.state.save(record) }
            if report { try bookkeeping.report(record) }
        } catch let error as ReverseAudioError {
            throw Stopped(error: error)
        }
    }

    /// One result as a JSON object on one line (`reverse --json`).
    static func jsonLine(_ result: ConversionResult, label: String, verified: Bool?) -> String {
        var object = ConversionSummary.json(result, input: label, output: result.output.relativePath)
        if let verified { object["verified"] = verified }
        return JSONResultOption.line(object)
    }
}
