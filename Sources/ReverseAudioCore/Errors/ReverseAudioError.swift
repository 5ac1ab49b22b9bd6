import Foundation

/// Why an operation failed, by domain, with what a program needs to act on it (the file's
/// length for a range past its end, the allowed values for a setting out of range).
/// ``description`` is one line that names the file and the reason; it names library settings,
/// not command-line flags (the `reverse-audio` tool adds its own advice).
///
/// ```swift
/// do { try await AudioConverter.convert(input, to: output) }
/// catch ReverseAudioError.range(.rangePastEnd(_, _, _, let length, _)) { print("the file has", length, "frames") }
/// catch let error as ReverseAudioError { print(error) }   // one line: the file and the reason
/// ```
public enum ReverseAudioError: Error, Sendable, Equatable, CustomStringConvertible, LocalizedError {
    /// An input cannot be used: missing, unreadable, not media, without the stream asked for,
    /// damaged past decoding, or a pipe where the work must go back.
    case input(InputError)
    /// A position or range cannot be: past the end, empty, contradictory, or a seek a source cannot
    /// make.
    case range(RangeError)
    /// A value given to the library is outside what works (a bit rate, a preset, a zoom, a buffer
    /// of the wrong shape).
    case setting(SettingError)
    /// The output cannot be made: its format, what the codec holds, a name taken, a write that failed.
    case output(OutputError)
    /// A sound device cannot be opened or failed while playing.
    case device(DeviceError)

    /// One line that names the file and the reason.
    public var description: String {
        switch self {
        case .input(let error): return error.message
        case .range(let error): return error.message
        case .setting(let error): return error.message
        case .output(let error): return error.message
        case .device(let error): return error.message
        }
    }

    /// The same line, for `LocalizedError` users.
    public var errorDescription: String? { description }

    /// The failure's own name (`notMedia`, `writeFailed`), stable across releases: a manifest's
    /// kind of failure.
    package var kind: String {
        let inner: Any
        switch self {
        case .input(let error): inner = error
        case .range(let error): inner = error
        case .setting(let error): inner = error
        case .output(let error): inner = error
        case .device(let error): inner = error
        }
        // Every case carries a payload, so the mirror's one child is labelled with the case.
        return Mirror(reflecting: inner).children.first?.label ?? String(describing: inner)
    }

    static func found(_ streams: [String]) -> String {
        streams.isEmpty ? "no streams" : streams.joined(separator: ", ") + " only"
    }
}

/// Why an input cannot be used: missing, unreadable, not media, without the stream asked for,
/// damaged past decoding, or a pipe where the work must go back: the
/// ``ReverseAudioError/input(_:)`` failures.
public enum InputError: Sendable, Equatable {
    /// The input does not exist.
    case fileNotFound(path: String)
    /// The input is a directory, not a file.
    case isDirectory(path: String)
    /// The input has no bytes at all.
    case emptyFile(path: String)
    /// The input cannot be read (permissions, I/O error).
    case unreadable(path: String, reason: String)
    /// FFmpeg recognises no media format in the input.
    case notMedia(path: String, reason: String)
    /// The input is a media file without an audio stream (e.g. a silent video).
    case noAudioStream(path: String, streams: [String])
    /// No decoder exists for the audio codec.
    case unsupportedCodec(path: String, codec: String)
    /// The requested channel index is not in the file.
    case channelOutOfRange(path: String, channel: Int, channelCount: Int)
    /// Decoding stopped on an error FFmpeg could not skip.
    case decodingFailed(path: String, reason: String)
    /// The work needs the input's length before decoding it, and nothing tells it (a pipe).
    case lengthUnknown(path: String, reason: String)
    /// The input is a pipe, read once, and the work needs to go back in it.
    case notSeekable(path: String, reason: String)
    /// FFmpeg recognises no media format in a file given as a video.
    case notVideo(path: String, reason: String)
    /// The input has no video stream.
    case noVideoStream(path: String, streams: [String])
    /// The input's video stream cannot be decoded: no decoder in this FFmpeg build, or damage.
    /// `stream` names it ("video stream 0 (h264)").
    case videoStreamFailed(path: String, stream: String, reason: String)
    /// An input of a composition has another rate or channel count than the first file's.
    case formatMismatch(path: String, sampleRate: Int, channels: Int, expectedSampleRate: Int, expectedChannels: Int)

    /// One line that names the file and the reason.
    var message: String {
        switch self {
        case .fileNotFound(let path):
            return "\(path): no such file"
        case .isDirectory(let path):
            return "\(path): is a directory, not an audio file"
        case .emptyFile(let path):
            return "\(path): file is empty (0 bytes)"
        case .unreadable(let path, let reason):
            return "\(path): cannot read: \(reason)"
        case .notMedia(let path, let reason):
            return "\(path): not an audio file FFmpeg can read (\(reason))"
        case .noAudioStream(let path, let streams):
            return "\(path): no audio stream (found \(ReverseAudioError.found(streams)))"
        case .unsupportedCodec(let path, let codec):
            return "\(path): no decoder for audio codec '\(codec)' in this FFmpeg build"
        case .channelOutOfRange(let path, let channel, let channelCount):
            return "\(path): channel \(channel) does not exist (the file has \(channelCount) channel\(channelCount == 1 ? "" : "s"), numbered from 0)"
        case .decodingFailed(let path, let reason):
            return "\(path): decoding failed: \(reason)"
        case .lengthUnknown(let path, let reason):
            return "\(path): its length cannot be known before decoding it: \(reason)"
        case .notSeekable(let path, let reason):
            return "\(path): \(reason)"
        case .notVideo(let path, let reason):
            return "\(path): not a video file FFmpeg can read (\(reason))"
        case .noVideoStream(let path, let streams):
            return "\(path): no video stream (found \(ReverseAudioError.found(streams)))"
        case .videoStreamFailed(let path, let stream, let reason):
            return "\(path): \(stream): \(reason)"
        case .formatMismatch(let path, let rate, let channels, let expectedRate, let expectedChannels):
            return "\(path): \(rate) Hz, \(ChannelCountText.phrase(channels)), unlike the first file's \(expectedRate) Hz, \(ChannelCountText.phrase(expectedChannels))"
        }
    }
}

/// Why a position or range cannot be: past the end, empty, contradictory, or a seek a source cannot
/// make: the ``ReverseAudioError/range(_:)`` failures.
public enum RangeError: Sendable, Equatable {
    /// A range starts (`isStart`) or ends at `frame`, past the end of a stream of `length` frames.
    case rangePastEnd(path: String, frame: Int64, isStart: Bool, length: Int64, sampleRate: Int)
    /// A range holds no frame at the file's rate.
    case emptyRange(path: String, start: Int64, end: Int64)
    /// A range that cannot be: both an end and a duration, a zero duration, an end before the start.
    case invalidRange(reason: String)
    /// A seek to a negative frame, or to somewhere a source cannot go (sample rate converted).
    case cannotSeek(path: String, frame: Int64, reason: String)
    /// A fade-in of `fadeIn` frames and a fade-out of `fadeOut` frames that together last longer
    /// than the `length` frames heard: they would overlap (and a long logarithmic fade over a
    /// short cut leaves it silent), so they are refused, as `sox fade` refuses overlapping fades.
    case fadesLongerThanHeard(path: String, fadeIn: Int64, fadeOut: Int64, length: Int64, sampleRate: Int)

    /// One line that names the file and the reason.
    var message: String {
        switch self {
        case .rangePastEnd(let path, let frame, let isStart, let length, let sampleRate):
            let seconds = String(format: "%.3f", Double(length) / Double(max(sampleRate, 1)))
            return "\(path): the range \(isStart ? "starts" : "ends") at frame \(frame), after the end of the file (\(length) frames, \(seconds) s)"
        case .emptyRange(let path, let start, let end):
            return "\(path): the range is empty (start \(start) ≥ end \(end) frames)"
        case .invalidRange(let reason):
            return "invalid range: \(reason)"
        case .cannotSeek(let path, let frame, let reason):
            return "\(path): cannot seek to frame \(frame): \(reason)"
        case .fadesLongerThanHeard(let path, let fadeIn, let fadeOut, let length, let sampleRate):
            let rate = Double(max(sampleRate, 1))
            func seconds(_ frames: Int64) -> String { String(format: "%.3f s", Double(frames) / rate) }
            let fades = [fadeIn > 0 ? "a \(seconds(fadeIn)) fade-in" : nil, fadeOut > 0 ? "a \(seconds(fadeOut)) fade-out" : nil]
                .compactMap { $0 }.joined(separator: " and ")
            let both = fadeIn > 0 && fadeOut > 0
            return "\(path): \(fades) \(both ? "last" : "lasts") longer than the \(seconds(length)) (\(length) frames) heard; "
                + (both ? "shorten them so that together they fit" : "shorten it to fit")
        }
    }
}

/// Why a value given to the library is outside what works (a bit rate, a preset, a zoom, a buffer
/// of the wrong shape): the ``ReverseAudioError/setting(_:)`` failures.
public enum SettingError: Sendable, Equatable {
    /// The settings an ``outOfRange(_:value:allowed:)`` or ``unknownChoice(_:value:choices:)`` names.
    public enum Setting: String, Sendable, Equatable {
        case bitRate = "bit rate"
        case blockFrames = "block size"
        case sampleRate = "sample rate"
        case outputFormat = "output format"
        case crf = "CRF"
        case preset = "preset"
        case memoryLimit = "memory limit"
        case audioBitRate = "audio bit rate"
        case waveformSize = "waveform size"
        case waveformZoom = "waveform zoom"
        case videoContainer = "video container"
        case audioCodec = "audio codec"
    }

    /// A setting outside the values that work; `allowed` says which do ("8 to 640 kb/s").
    case outOfRange(Setting, value: String, allowed: String)
    /// A name that is none of the choices (an output format, an x264 preset).
    case unknownChoice(Setting, value: String, choices: [String])
    /// A block of interleaved samples of the wrong size or type for what it is used as.
    case sampleBufferMismatch(reason: String)
    /// A waveform zoom that gives fewer than 2 samples a pixel at the file's sample rate.
    case zoomFinerThanSamples(path: String, samplesPerPixel: Int, sampleRate: Int)

    /// One line that names the file and the reason.
    var message: String {
        switch self {
        case .outOfRange(let setting, let value, let allowed):
            return "the \(setting.rawValue) must be \(allowed), not \(value)"
        case .unknownChoice(let setting, let value, let choices):
            return "unknown \(setting.rawValue) '\(value)'; use one of \(choices.joined(separator: ", "))"
        case .sampleBufferMismatch(let reason):
            return "sample buffer: \(reason)"
        case .zoomFinerThanSamples(let path, let samplesPerPixel, let sampleRate):
            return "\(path): at \(sampleRate) Hz that zoom gives \(samplesPerPixel) sample\(samplesPerPixel == 1 ? "" : "s") a pixel; a pixel needs at least 2"
        }
    }
}

/// Why the output cannot be made: its format, what the codec holds, a name taken, a write that
/// failed: the ``ReverseAudioError/output(_:)`` failures.
public enum OutputError: Sendable, Equatable {
    /// The output format cannot be told from the file's name.
    case unknownOutputFormat(path: String, extension: String, known: [String])
    /// The container cannot hold the codec.
    case containerCannotHold(container: String, codec: String, holds: [String])
    /// The codec cannot store the audio's sample format without loss.
    case sampleFormatNotStorable(path: String, codec: String, sampleFormat: SampleFormat, storable: [SampleFormat])
    /// The codec holds fewer channels than the audio has.
    case tooManyChannels(path: String, codec: String, channels: Int, maximum: Int)
    /// The codec cannot hold the audio's sample rate; `supported` lists the rates it can.
    case unsupportedSampleRate(path: String, codec: String, sampleRate: Int, supported: [Int])
    /// A composition without a file to take its format from.
    case nothingToCompose(path: String)
    /// Playback that nothing would end (a loop), rendered to a file of no stated length.
    case endlessOutput(path: String)
    /// The output exists and overwriting was not asked for.
    case outputExists(path: String)
    /// The output would replace the input.
    case outputIsInput(path: String)
    /// The output cannot be created where it was asked for.
    case cannotCreateOutput(path: String, reason: String)
    /// Writing the output failed part-way (full disk, file size limit, removed directory).
    case writeFailed(path: String, reason: String)
    /// The reversed-reversed audio is not the original (round-trip verification).
    case verificationFailed(path: String, reason: String)
    /// A video container cannot hold the audio codec asked for: `holders` are the containers that
    /// can, `codecs` the audio codecs this one holds.
    case videoContainerCannotHold(container: String, codec: String, holders: [String], codecs: [String])
    /// This FFmpeg build lacks an encoder the work needs.
    case encoderMissing(name: String, purpose: String)

    /// One line that names the file and the reason.
    var message: String {
        switch self {
        case .unknownOutputFormat(let path, let ext, let known):
            let what = ext.isEmpty ? "a name without an extension" : "'.\(ext)'"
            return "\(path): cannot tell the format from \(what); name the file \(known.map { "." + $0 }.joined(separator: " "))"
        case .containerCannotHold(let container, let codec, let holds):
            return "a .\(container) file cannot hold \(codec); it holds \(holds.joined(separator: ", "))"
        case .sampleFormatNotStorable(let path, let codec, let sampleFormat, let storable):
            return "\(path): \(codec.uppercased()) cannot hold \(sampleFormat) samples (it holds \(storable.map(\.rawValue).joined(separator: ", ")))"
        case .tooManyChannels(let path, let codec, let channels, let maximum):
            return "\(path): \(codec.uppercased()) holds at most \(maximum) channels and the audio has \(channels)"
        case .unsupportedSampleRate(let path, let codec, let sampleRate, let supported):
            return "\(path): \(codec) cannot hold \(sampleRate) Hz audio (it holds \(supported.map(String.init).joined(separator: ", ")) Hz)"
        case .nothingToCompose(let path):
            return "\(path): a composition needs at least one file to take its format from"
        case .endlessOutput(let path):
            return "\(path): a loop never ends; give a length of output or a stop event"
        case .outputExists(let path):
            return "\(path): output already exists"
        case .outputIsInput(let path):
            return "\(path): output is an input of this command; refusing to overwrite it"
        case .cannotCreateOutput(let path, let reason):
            return "\(path): cannot create output: \(reason)"
        case .writeFailed(let path, let reason):
            return "\(path): writing failed: \(reason)"
        case .verificationFailed(let path, let reason):
            return "\(path): round trip failed: \(reason)"
        case .videoContainerCannotHold(let container, let codec, let holders, let codecs):
            let elsewhere = holders.isEmpty ? "" : "; \(holders.map { "." + $0 }.joined(separator: " or ")) holds it"
            return "a .\(container) file cannot hold \(codec) audio\(elsewhere), and .\(container) holds \(codecs.joined(separator: ", "))"
        case .encoderMissing(let name, let purpose):
            return "this FFmpeg build has no \(name) encoder, which \(purpose)"
        }
    }
}

/// Why a sound device cannot be opened or failed while playing: the
/// ``ReverseAudioError/device(_:)`` failures.
public enum DeviceError: Sendable, Equatable {
    /// The sound device cannot be opened (no such device, no sound server, busy).
    case deviceUnavailable(name: String, reason: String)
    /// The sound device failed while playing.
    case deviceFailed(name: String, reason: String)

    /// One line that names the file and the reason.
    var message: String {
        switch self {
        case .deviceUnavailable(let name, let reason):
            return "sound device '\(name)': cannot open it (\(reason))"
        case .deviceFailed(let name, let reason):
            return "sound device '\(name)': \(reason)"
        }
    }
}

