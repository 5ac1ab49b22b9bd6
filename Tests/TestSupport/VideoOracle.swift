import Foundation

extension Fixtures {
    /// The video fixtures (made by `scripts/make-fixtures`), in a subfolder so the audio suites'
    /// lists leave them out.
    public static let videoDirectory = directory.appendingPathComponent("video")

    /// A video fixture by file name.
    public static func video(_ name: String) -> URL {
        videoDirectory.appendingPathComponent(name)
    }
}

/// The ffmpeg and ffprobe CLIs as the reference for video: decoded pictures and their times.
public enum VideoOracle {
    /// One decoded picture: when it is shown, for how long (seconds), and the MD5 of its pixels.
    public struct Picture: Equatable, CustomStringConvertible {
        public let time: Double
        public let duration: Double
        public let md5: String

        public var description: String { String(format: "%.4f+%.4f %@", time, duration, String(md5.prefix(8))) }
    }

    /// The pictures of `file`'s first video stream as ffmpeg decodes them (no rotation applied,
    /// no frame dropped or repeated): MD5s from `-f framemd5`, times from ffprobe.
    /// - Parameter filter: a video filter applied before hashing (e.g. `crop=95:71:0:0`).
    public static func pictures(of file: URL, filter: String? = nil) async throws -> [Picture] {
        var arguments = ["-nostdin", "-v", "error", "-noautorotate", "-i", file.path, "-map", "0:v:0"]
        if let filter { arguments += ["-vf", filter] }
        arguments += ["-fps_mode", "passthrough", "-f", "framemd5", "-"]
        let hashed = try await ProcessRunner.run("ffmpeg", arguments)
        guard hashed.status == 0 else { throw FFmpegOracle.Failure(description: "ffmpeg framemd5 failed on \(file.lastPathComponent): \(hashed.errorText)") }
        let md5s = hashed.outputText.split(separator: "\n").filter { !$0.hasPrefix("#") }
            .compactMap { $0.split(separator: ",").last?.trimmingCharacters(in: .whitespaces) }
        let probed = try await ProcessRunner.run("ffprobe", ["-v", "error", "-select_streams", "v:0", "-show_entries",
                                                       "frame=best_effort_timestamp_time,pkt_duration_time", "-of", "csv=p=0", file.path])
        guard probed.status == 0 else { throw FFmpegOracle.Failure(description: "ffprobe failed on \(file.lastPathComponent): \(probed.errorText)") }
        let times = probed.outputText.split(separator: "\n").map { line -> (Double, Double) in
            let fields = line.split(separator: ",", omittingEmptySubsequences: false).map { Double($0) ?? .nan }
            return (fields.first ?? .nan, fields.count > 1 ? fields[1] : .nan)
        }
        guard times.count == md5s.count else {
            throw FFmpegOracle.Failure(description: "\(file.lastPathComponent): ffmpeg hashed \(md5s.count) pictures, ffprobe timed \(times.count)")
        }
        return zip(times, md5s).map { Picture(time: $0.0.0, duration: $0.0.1, md5: $0.1) }
    }

    /// Every picture's planes, rows packed tightly, in `pixelFormat` (`ffmpeg -f rawvideo`).
    public static func rawPictures(of file: URL, pixelFormat: String = "yuv420p") async throws -> Data {
        let result = try await ProcessRunner.run("ffmpeg", ["-nostdin", "-v", "error", "-noautorotate", "-i", file.path, "-map", "0:v:0",
                                                      "-fps_mode", "passthrough", "-f", "rawvideo", "-pix_fmt", pixelFormat, "-"])
        guard result.status == 0 else { throw FFmpegOracle.Failure(description: "ffmpeg failed on \(file.lastPathComponent): \(result.errorText)") }
        return result.standardOutput
    }

    /// The decoded audio of `file`'s first audio stream in `format` ("s16le", "f32le"), after
    /// `arguments` (such as `["-af", "areverse"]`).
    /// An MP4's audio ends where its container says (``FFmpegOracle/statedEnd(of:)``).
    public static func audio(of file: URL, format: String, _ arguments: [String] = []) async throws -> Data {
        var arguments = arguments
        if let end = try await FFmpegOracle.statedEnd(of: file) {
            if let filter = arguments.firstIndex(of: "-af"), filter + 1 < arguments.count {
                arguments[filter + 1] = "atrim=end_sample=\(end)," + arguments[filter + 1]
            } else {
                arguments = ["-af", "atrim=end_sample=\(end)"] + arguments
            }
        }
        let result = try await ProcessRunner.run("ffmpeg", ["-nostdin", "-v", "error", "-i", file.path, "-map", "0:a:0"] + arguments
                                            + ["-f", format, "-"])
        guard result.status == 0 else { throw FFmpegOracle.Failure(description: "ffmpeg failed on \(file.lastPathComponent): \(result.errorText)") }
        return result.standardOutput
    }

    /// ffprobe's streams of `file`, as JSON objects, side data included.
    public static func streams(of file: URL) async throws -> [[String: Any]] {
        let result = try await ProcessRunner.run("ffprobe", ["-v", "error", "-print_format", "json", "-show_streams", file.path])
        guard result.status == 0,
              let object = try JSONSerialization.jsonObject(with: result.standardOutput) as? [String: Any],
              let streams = object["streams"] as? [[String: Any]] else {
            throw FFmpegOracle.Failure(description: "ffprobe failed on \(file.lastPathComponent): \(result.errorText)")
        }
        return streams
    }

    /// The rotation the first video stream's display matrix states, if any.
    public static func rotation(of file: URL) async throws -> Double? {
        let video = try await streams(of: file).first { $0["codec_type"] as? String == "video" }
        let sideData = video?["side_data_list"] as? [[String: Any]] ?? []
        for entry in sideData where entry["side_data_type"] as? String == "Display Matrix" {
            if let value = entry["rotation"] as? Double { return value }
            if let value = entry["rotation"] as? Int { return Double(value) }
        }
        return nil
    }

    /// Where a reversal puts input pictures shown at `times` (the last lasting `lastDuration`):
    /// output picture i starts at end − t(n−i), with t(n) = end.
    public static func reversedTimes(_ times: [Double], lastDuration: Double) -> [Double] {
        guard let last = times.last else { return [] }
        let end = last + lastDuration
        let following = Array(times.dropFirst()) + [end]
        return following.reversed().map { end - $0 }
    }

    /// A boomerang's times: the input's from 0, then its pictures but the last reversed after them.
    public static func boomerangTimes(_ times: [Double], lastDuration: Double) -> [Double] {
        guard let first = times.first, let last = times.last else { return [] }
        let forward = times.map { $0 - first }
        let forwardEnd = last + lastDuration - first
        let backward = reversedTimes(Array(times.dropLast()), lastDuration: last - (times.dropLast().last ?? last))
        return forward + backward.map { $0 + forwardEnd }
    }
}
