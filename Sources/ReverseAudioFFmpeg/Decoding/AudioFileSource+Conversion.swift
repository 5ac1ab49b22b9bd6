import FFmpeg
import Foundation
import ReverseAudioCore

// The conversion a file source does in its interleaving pass (sample format, rate, a mix-down),
// taken over from a ``SampleConverter`` before anything is delivered.
extension AudioFileSource {
    /// What the samples are converted to on the way out.
    package struct Conversion: Equatable {
        package var sampleFormat: SampleFormat?
        package var sampleRate: Int?
        package var mixesToMono = false

        package init(sampleFormat: SampleFormat? = nil, sampleRate: Int? = nil, mixesToMono: Bool = false) {
            self.sampleFormat = sampleFormat
            self.sampleRate = sampleRate
            self.mixesToMono = mixesToMono
        }
    }

    /// Takes over a conversion a ``SampleConverter`` would otherwise do on the interleaved
    /// samples, so it happens in the interleaving pass. Only before anything is delivered.
    /// - Returns: false when it is too late.
    func adopt(_ requested: Conversion) -> Bool {
        guard atStart, pending.isEmpty else { return false }
        conversion = requested
        resampler = makeResampler()
        format = outputFormat()
        return true
    }

    func makeResampler() -> Resampler {
        Resampler(channels: conversion.mixesToMono ? .mixedToMono : .unchanged,
                  type: (conversion.sampleFormat ?? sourceSampleFormat).sampleType, sampleRate: conversion.sampleRate)
    }

    /// The format delivered: the conversion's, on the first frame's rate and channels.
    func outputFormat() -> PCMFormat {
        let held = positioner.frame
        let rate = conversion.sampleRate ?? (held.sampleRate > 0 ? held.sampleRate : input.parameters.sampleRate)
        let channels = held.channelCount > 0 ? held.channelCount : input.parameters.channelCount
        let sampleFormat = conversion.sampleFormat ?? sourceSampleFormat
        if conversion.mixesToMono {
            return PCMFormat(sampleFormat: sampleFormat, sampleRate: rate, channelCount: 1, channelLayoutName: "mono")
        }
        return PCMFormat(sampleFormat: sampleFormat, sampleRate: rate, channelCount: channels,
                         channelLayoutName: input.parameters.channelLayoutName ?? ChannelLayout(defaultFor: channels).name)
    }

    /// Runs a sample conversion, naming the file and the reason when swresample refuses it.
    func convert(_ conversion: () throws(FFmpegError) -> UnsafeRawBufferPointer) throws -> UnsafeRawBufferPointer {
        do {
            return try conversion()
        } catch {
            var reason = "\(error.operation) failed (\(error.message))"
            let channels = positioner.frame.channelCount
            if channels > Resampler.maximumChannelCount {
                reason += ": the converter handles at most \(Resampler.maximumChannelCount) channels and the file has \(channels)"
            }
            throw ReverseAudioError.input(.decodingFailed(path: name, reason: reason))
        }
    }
}
