import Foundation
import Hummingbird
import ReverseAudio

/// The jobs `serve` runs: each the library operation its command runs (same outputs byte for
/// byte), at most ``runningAtOnce`` at a time and ``unfinishedAtMost`` waiting or running,
/// into the output folder and nowhere else, never over an existing file.
///
/// Progress goes to every subscriber of a job's events, in order (a fraction never goes back).
/// Cancelling a job, or the server shutting down, stops it and removes its partial file.
///
/// Jobs on remote addresses have slots and a limit of their own: a stalled server fills
/// those, never the local jobs' (which go on being accepted and run).
actor JobTable {
    let folder: MediaFolder
    let runningAtOnce: Int
    let unfinishedAtMost: Int
    /// Unfinished jobs on remote addresses at most (besides ``unfinishedAtMost`` local ones).
    let remoteUnfinishedAtMost: Int
    private let localSlots: AsyncLimit
    private let remoteSlots: AsyncLimit
    private var jobs: [String: Entry] = [:]
    private var nextNumber = 1

    private struct Entry {
        var status: JobStatus
        var url: URL
        var isRemote: Bool
        var task: Task<Void, Never>?
        var subscribers: [UUID: AsyncStream<JobStatus>.Continuation] = [:]
    }

    /// What a job reads: a file opened when the job was accepted (kept open until it ends),
    /// or a remote address (read only inside the job, never while the request waits).
    enum Input: Sendable {
        case file(FolderFile)
        case remote(URL)

        var isRemote: Bool {
            if case .remote = self { return true }
            return false
        }
    }

    init(folder: MediaFolder, runningAtOnce: Int = 2, unfinishedAtMost: Int = 16, remoteUnfinishedAtMost: Int = 8) {
        self.folder = folder
        self.runningAtOnce = runningAtOnce
        self.unfinishedAtMost = unfinishedAtMost
        self.remoteUnfinishedAtMost = remoteUnfinishedAtMost
        localSlots = AsyncLimit(runningAtOnce)
        remoteSlots = AsyncLimit(runningAtOnce)
    }

    /// The length of an audio job's input, which a range is checked against.
    struct AudioLength: Sendable {
        let frames: Int64
        let sampleRate: Int
    }

    /// Starts `request` on `input` (its file or address, resolved; named `inputName`; `length`
    /// long when it is audio), or refuses it: 400 for a bad name, format, setting or range (one
    /// past the end included), 409 when the output exists or another job writes it, 503 when
    /// too many are unfinished.
    func start(_ request: JobRequest, input: Input, inputName: String, title: String, length: AudioLength?) throws -> JobStatus {
        let taken = { (candidate: String) in
            self.jobs.values.contains { $0.url.lastPathComponent == candidate } ||
                FileManager.default.fileExists(atPath: self.folder.output.appendingPathComponent(candidate).path)
        }
        let name = request.output ?? JobOutputName.make(for: request.operation, title: title, isTaken: taken)
        guard !name.isEmpty, !name.contains("/"), !name.contains("\0"), !name.hasPrefix("."), name.count <= 255 else {
            throw HTTPError(.badRequest, message: "output: a plain file name in the output folder, like song-reversed.wav")
        }
        let range = try request.range()
        if request.operation == .trim && range == nil {
            throw HTTPError(.badRequest, message: "trim needs start or end")
        }
        if request.operation.isVideo && range != nil {
            throw HTTPError(.badRequest, message: "\(request.operation.rawValue) takes the whole video: no start or end")
        }
        if let crf = request.crf, !request.operation.isVideo || !(0...51).contains(crf) {
            throw HTTPError(.badRequest, message: "crf: 0 to 51, for the video jobs only")
        }
        if let range, let length {
            do {
                _ = try range.frames(atRate: length.sampleRate, path: inputName)
                    .within(length: length.frames, sampleRate: length.sampleRate, path: inputName)
            } catch {
                throw folder.answer(for: error)
            }
        }
        let output = folder.output.appendingPathComponent(name)
        do {
            if request.operation.isVideo {
                _ = try VideoContainer.forFile(output)
            } else {
                _ = try OutputFormat.forFile(output)
            }
        } catch {
            throw folder.answer(for: error)
        }
        let limit = input.isRemote ? remoteUnfinishedAtMost : unfinishedAtMost
        guard jobs.values.filter({ $0.status.status == .running && $0.isRemote == input.isRemote }).count < limit else {
            let kind = input.isRemote ? " on remote addresses" : ""
            throw HTTPError(.serviceUnavailable, message: "\(limit) jobs\(kind) are unfinished already; try again when one ends")
        }
        if jobs.values.contains(where: { $0.status.status == .running && $0.url == output }) {
            throw HTTPError(.conflict, message: "\(name): another job is writing it")
        }
        if FileManager.default.fileExists(atPath: output.path) {
            throw HTTPError(.conflict, message: "\(name): exists already in the output folder")
        }
        do {
            try FileManager.default.createDirectory(at: folder.output, withIntermediateDirectories: true)
        } catch {
            throw HTTPError(.internalServerError, message: "the output folder could not be made")
        }
        let id = "\(nextNumber)-\(UUID().uuidString.prefix(8).lowercased())"
        nextNumber += 1
        let status = JobStatus(id: id, file: inputName, operation: request.operation.rawValue, output: name,
                               status: .running, fraction: 0, error: nil)
        jobs[id] = Entry(status: status, url: output, isRemote: input.isRemote)
        let slots = input.isRemote ? remoteSlots : localSlots
        let task = Task { [folder] in
            let progress: ProgressHandler = { fraction in Task { await self.update(id, fraction: fraction) } }
            do {
                try await slots.run {
                    try Task.checkCancellation()
                    switch input {
                    case .file(let file):
                        try await Self.run(request, input: try file.url(), output: output, range: range, progress: progress)
                    case .remote(let url):
                        try await Self.run(request, input: url, output: output, range: range, progress: progress)
                    }
                }
                self.finish(id, error: nil)
            } catch is CancellationError {
                self.finish(id, error: "cancelled")
            } catch {
                self.finish(id, error: Self.reason(error, input: input, folder: folder))
            }
        }
        jobs[id]?.task = task
        return status
    }

    /// The operation itself, through the library as the command line calls it.
    private static func run(_ request: JobRequest, input: URL, output: URL, range: TimeRange?,
                            progress: @escaping ProgressHandler) async throws {
        switch request.operation {
        case .reverse, .convert:
            var options = ConversionOptions(reverse: request.operation == .reverse)
            options.range = range
            _ = try await AudioConverter.convert(input, to: output, options: options, progress: progress)
        case .trim:
            var composition = Composition(pieces: [.file(input, range: range)])
            composition.progress = progress
            _ = try await composition.write(to: output)
        case .reverseVideo, .boomerang:
            let options = VideoOptions(boomerang: request.operation == .boomerang, quality: .crf(request.crf ?? 18))
            _ = try await VideoReverser.reverse(input, to: output, options: options, progress: progress)
        }
    }

    /// Why a job failed, as its status says it: the library's reason with the server's paths
    /// taken out; for a remote input one text whatever the network said (a page must not learn
    /// which ports of a host answer).
    private static func reason(_ error: any Error, input: Input, folder: MediaFolder) -> String {
        switch input {
        case .remote(let url):
            if let error = error as? ReverseAudioError, case .input = error {
                return "\(url.absoluteString): could not be read as audio (no answer, an error, or not audio)"
            }
            return "\((folder.answer(for: error) as? HTTPError)?.body ?? "failed")"
        case .file(let file):
            return file.naming("\((folder.answer(for: error) as? HTTPError)?.body ?? "failed")")
        }
    }

    /// The job `id`, or 404.
    func status(of id: String) throws -> JobStatus {
        guard let entry = jobs[id] else { throw HTTPError(.notFound, message: "no job \(id)") }
        return entry.status
    }

    /// The output of job `id` once it is done: 404 for no such job, 409 while it is not done.
    func result(of id: String) throws -> URL {
        guard let entry = jobs[id] else { throw HTTPError(.notFound, message: "no job \(id)") }
        guard entry.status.status == .done else {
            throw HTTPError(.conflict, message: "job \(id) is \(entry.status.status.rawValue), not done")
        }
        return entry.url
    }

    /// Stops job `id` (its partial file is removed); a finished job stays as it is.
    func cancel(_ id: String) throws -> JobStatus {
        guard let entry = jobs[id] else { throw HTTPError(.notFound, message: "no job \(id)") }
        entry.task?.cancel()
        return entry.status
    }

    /// The job's status now and at every change, ending after it is done or failed.
    func events(of id: String) throws -> AsyncStream<JobStatus> {
        guard let entry = jobs[id] else { throw HTTPError(.notFound, message: "no job \(id)") }
        let (stream, continuation) = AsyncStream<JobStatus>.makeStream(bufferingPolicy: .bufferingNewest(64))
        continuation.yield(entry.status)
        if entry.status.status != .running {
            continuation.finish()
            return stream
        }
        let key = UUID()
        jobs[id]?.subscribers[key] = continuation
        continuation.onTermination = { _ in Task { await self.unsubscribe(id, key) } }
        return stream
    }

    private func unsubscribe(_ id: String, _ key: UUID) {
        jobs[id]?.subscribers[key] = nil
    }

    private func update(_ id: String, fraction: Double) {
        guard var entry = jobs[id], entry.status.status == .running, fraction > entry.status.fraction else { return }
        // 1.0 is said by the job's end, once the output is in place.
        entry.status.fraction = min(fraction, 0.999)
        jobs[id] = entry
        entry.subscribers.values.forEach { $0.yield(entry.status) }
    }

    private func finish(_ id: String, error: String?) {
        guard var entry = jobs[id] else { return }
        entry.status.status = error == nil ? .done : .failed
        entry.status.error = error
        if error == nil { entry.status.fraction = 1 }
        entry.subscribers.values.forEach {
            $0.yield(entry.status)
            $0.finish()
        }
        entry.subscribers.removeAll()
        jobs[id] = entry
    }

    /// Stops every job and waits until each has removed its partial file.
    func stopAll() async {
        let tasks = jobs.values.compactMap(\.task)
        tasks.forEach { $0.cancel() }
        for task in tasks { await task.value }
    }
}
