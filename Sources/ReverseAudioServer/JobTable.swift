import Foundation
import Hummingbird
import ReverseAudio

/// The jobs `serve` runs: each the library operation its command runs (same outputs byte for
/// byte), at most ``runningAtOnce`` at a time and ``unfinishedAtMost`` waiting or running,
/// into the output folder and nowhere else, never over an existing file.
///
/// Progress goes to every subscriber of a job's events, in order (a fraction never goes back).
/// Cancelling a job, or the server shutting down, stops it and removes its partial file.
actor JobTable {
    let folder: MediaFolder
    let runningAtOnce: Int
    let unfinishedAtMost: Int
    private var jobs: [String: Entry] = [:]
    private var running = 0
    private var waiting: [CheckedContinuation<Void, Never>] = []
    private var nextNumber = 1

    private struct Entry {
        var status: JobStatus
        var url: URL
        var task: Task<Void, Never>?
        var subscribers: [UUID: AsyncStream<JobStatus>.Continuation] = [:]
    }

    init(folder: MediaFolder, runningAtOnce: Int = 2, unfinishedAtMost: Int = 16) {
        self.folder = folder
        self.runningAtOnce = runningAtOnce
        self.unfinishedAtMost = unfinishedAtMost
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
    func start(_ request: JobRequest, input: URL, inputName: String, length: AudioLength?) throws -> JobStatus {
        let name = request.output
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
        guard jobs.values.filter({ $0.status.status == .running }).count < unfinishedAtMost else {
            throw HTTPError(.serviceUnavailable, message: "\(unfinishedAtMost) jobs are unfinished already; try again when one ends")
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
        jobs[id] = Entry(status: status, url: output)
        let task = Task { [folder] in
            await self.waitForSlot()
            defer { self.releaseSlot() }
            let progress: ProgressHandler = { fraction in Task { await self.update(id, fraction: fraction) } }
            do {
                try Task.checkCancellation()
                try await Self.run(request, input: input, output: output, range: range, progress: progress)
                self.finish(id, error: nil)
            } catch is CancellationError {
                self.finish(id, error: "cancelled")
            } catch {
                self.finish(id, error: "\((folder.answer(for: error) as? HTTPError)?.body ?? "failed")")
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

    private func waitForSlot() async {
        if running < runningAtOnce {
            running += 1
            return
        }
        await withCheckedContinuation { waiting.append($0) }
    }

    private func releaseSlot() {
        if waiting.isEmpty {
            running -= 1
        } else {
            waiting.removeFirst().resume()
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
