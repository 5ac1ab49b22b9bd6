import Foundation
import ReverseAudio
import ReverseAudioBatch

/// Where each input of a batch goes under the output folder. A name depends only on the input:
/// the folders between the folder given and the file, and the file's NAME (its stem, or
/// stem-ext when its own folder holds another name with that stem: see
/// `SupportedAudioFiles.outputStem(of:siblingStems:)`), never on the other inputs of the call,
/// so that every share of a split batch, and every rerun, names a file alike.
enum OutputNaming {
    /// Each input's output path under the output folder ("live/song-REVERSED.wav"), in order,
    /// and for an input whose output is already another input's (two files named directly from
    /// two folders, `a/x.mp3 b/x.mp3`) the earlier input's name instead: that input fails rather
    /// than being renamed by what else the call holds.
    static func outputs(for inputs: [SupportedAudioFiles.Found], format: OutputFormat)
        -> [(output: String, clash: String?)] {
        var owners: [String: String] = [:]
        return inputs.map { found in
            let name = RoundTrip.outputNames(for: found.url, name: found.outputStem, format: format).reversed
            let output = found.relativeFolder.isEmpty ? name : found.relativeFolder + "/" + name
            // Case-insensitive file systems (macOS) would make these one file too.
            let key = output.lowercased()
            if let owner = owners[key] { return (output, owner) }
            owners[key] = found.url.displayPath
            return (output, nil)
        }
    }
}
