import FFmpeg
import Foundation
import ReverseAudioCore

// What a file source reports of the file as the `ffmpeg` CLI would log it: packets skipped, a
// read stopped early, a length the header misstates.
extension AudioFileSource {
    /// Checks the frames a resolution left unchecked (``OpenPlan/checksFrames``)
    /// once the decode met what a check would have found (a rejected frame, another length), so
    /// that the warnings say what every other command says of the file. On an open of its own.
    func checkFramesAfterDamage() {
        guard let unchecked = resolution, !unchecked.checkedFrames else { return }
        let lengthDiffers = decodedLength.map { $0 != unchecked.length.frames } ?? false
        guard positioner.skippedPackets > 0 || lengthDiffers else { return }
        if let checked = try? LengthResolver.resolve(url, parameters: input.parameters, keepingIndex: false, damagedAtStart: false,
                                                     isCancelled: isCancelled) {
            resolution = checked
            checkedAfterDecode = true
        }
    }

    /// Problems met so far that did not stop decoding (skipped packets, a truncated file, a
    /// header that misstates the length), as the `ffmpeg` CLI would have logged them.
    package var warnings: [ReverseAudioWarning] {
        checkFramesAfterDamage()
        var kinds: [ReverseAudioWarning.Kind] = []
        // What the decode met so far, or what resolving the length found of the whole file
        // (every command says the same of a file, whatever part of it it decodes).
        let rejected = resolution?.rejectedPackets ?? 0
        let skipped = checkedAfterDecode && rejected > 0 ? rejected : max(positioner.skippedPackets, rejected)
        if skipped > 0 {
            let reason = positioner.firstSkipReason ?? resolution?.rejectionReason ?? FFmpegError.invalidDataText
            kinds.append(.skippedPackets(count: skipped, reason: reason))
        }
        if let failure = positioner.readFailure { kinds.append(.readStoppedEarly(reason: failure)) }
        let damaged = skipped > 0 || positioner.readFailure != nil
        let parameters = input.parameters
        let rate = parameters.sampleRate
        // The length used, at the stream's rate: what decoding gave, or what resolving found.
        let known = decodedLength.map { format.sampleRate == rate ? $0 : $0 * Int64(rate) / Int64(max(format.sampleRate, 1)) }
            ?? resolution?.length.frames
        // At another rate whole output frames are counted: mapped back, the count is uncertain by
        // one output frame's worth of stream frames (at 1 Hz, half a second rounds to nothing).
        let slack = format.sampleRate == rate ? 0 : Int64(rate / max(format.sampleRate, 1)) + 1
        // The header's own statement where FFmpeg states what the file holds instead (a WAV cut
        // short); otherwise FFmpeg's, unless it only estimated it from the bit rate.
        let statement = resolution?.declaredFrames
            ?? (input.demuxer.durationIsEstimatedFromBitRate ? nil : parameters.statedDurationSamples)
        if let stated = statement, stated > 0, let known, abs(known - stated) > slack {
            if parameters.traits.containerStatesLength {
                // PCM and FLAC state their length exactly: any difference is worth a word. Less
                // audio than stated is a file cut short unless every frame decoded cleanly (a
                // FLAC header that is simply wrong), or packets rejected inside the stream held
                // what is missing (a file damaged, not cut).
                let cutShort = known < stated && (damaged || parameters.traits.family == .pcm || resolution?.endIsDamaged == true)
                if known < stated && resolution?.losesFramesInside == true {
                    kinds.append(.damagedPacketsLost(decodedFrames: known, statedFrames: stated, sampleRate: rate))
                } else if known > stated && damaged {
                    // More than stated, though frames were lost: the header is wrong, but not
                    // every frame is intact.
                    kinds.append(.lengthDiffers(predictedFrames: stated, decodedFrames: known, isRange: false))
                } else {
                    kinds.append(cutShort ? .truncated(decodedFrames: known, statedFrames: stated, sampleRate: rate)
                                          : .headerMisstatesLength(statedFrames: stated, decodedFrames: known, sampleRate: rate))
                }
            } else if stated - known > max(stated / 20, 8192) {
                // Other containers state lengths roughly (ALAC in CAF over-states by up to a packet).
                kinds.append(.truncated(decodedFrames: known, statedFrames: stated, sampleRate: rate))
            }
        }
        if let decodedLength, let predicted = resolution?.length, predicted.source == .packets,
           let frames = predicted.frames, frames != decodedLength, kinds.isEmpty {
            kinds.append(.lengthDiffers(predictedFrames: frames, decodedFrames: decodedLength, isRange: false))
        }
        if decodedLength == 0 && (slack == 0 || (parameters.statedDurationSamples ?? 0) <= slack) { kinds.append(.noSamples) }
        return kinds.map { ReverseAudioWarning($0, subject: name) }
    }
}
