import CFFmpeg
import Foundation

/// What an input may make FFmpeg open besides itself, process-wide.
///
/// A demuxer such as `hls`, `dash`, `concat` or `image2` (with a pattern) opens the files and
/// addresses its input names, through the format context's `io_open`: past every check made on
/// the name the user gave. Every input is therefore opened with ``NestedOpenGuard`` installed,
/// which refuses those nested opens unless the input is a playlist its user asked for, and
/// checks every remote address (the first, and where a redirect ended) against
/// ``remoteHosts``. The defaults are the safe ones: no playlists, any remote host.
package enum InputRules {
    private static let lock = NSLock()
    nonisolated(unsafe) private static var playlistPaths: Set<String> = []
    nonisolated(unsafe) private static var hosts: Set<RemoteHost>?
    nonisolated(unsafe) private static var timeout: Double = 20

    /// Demuxers that read what their input names rather than the input itself (playlists,
    /// manifests, indirections): refused unless the input is allowed to be a playlist.
    package static let indirectFormats: Set<String> = [
        "hls", "applehttp", "dash", "concat", "webm_dash_manifest", "imf", "sdp", "rtsp", "rtp",
    ]

    /// Every demuxer FFmpeg has but ``indirectFormats``, as `format_whitelist` takes them: an
    /// input that probes as one of those fails before its demuxer reads a line of it.
    static let directFormatList: String = {
        var names: [String] = []
        var opaque: UnsafeMutableRawPointer?
        while let format = av_demuxer_iterate(&opaque) {
            let name = String(cString: format.pointee.name)
            if name.split(separator: ",").allSatisfy({ !indirectFormats.contains(String($0)) }) { names.append(name) }
        }
        return names.joined(separator: ",")
    }()

    /// The demuxer FFmpeg's probe picks for `url` (a local input's URL), or nil: asked only
    /// after an open refused by the format list, to say which indirection the input was.
    static func probedFormat(of url: String) -> String? {
        var io: UnsafeMutablePointer<AVIOContext>?
        var options: OpaquePointer?
        av_dict_set(&options, "protocol_whitelist", "file", 0)
        defer { av_dict_free(&options) }
        guard avio_open2(&io, url, ra_avio_flag_read(), nil, &options) >= 0 else { return nil }
        defer { avio_closep(&io) }
        var format: UnsafePointer<AVInputFormat>?
        guard av_probe_input_buffer2(io, &format, url, nil, 0, 0) >= 0, let format else { return nil }
        return String(cString: format.pointee.name)
    }

    /// Lets the inputs at `paths` (as given to ``Demuxer``) be playlists whose entries are
    /// opened, under the same rules as the input. Only names a user gave one by one belong
    /// here: files found by walking a folder never do.
    package static func allowPlaylists(at paths: [String]) {
        lock.withLock { playlistPaths.formUnion(paths) }
    }

    /// True when `path` was allowed to be a playlist.
    package static func allowsPlaylist(at path: String) -> Bool {
        lock.withLock { playlistPaths.contains(path) }
    }

    /// The only hosts a remote input, its redirects and its nested opens may reach; nil (the
    /// default) for any.
    package static var remoteHosts: Set<RemoteHost>? {
        get { lock.withLock { hosts } }
        set { lock.withLock { hosts = newValue } }
    }

    /// Seconds a remote input may take to connect, or between two bytes, before it fails.
    package static var remoteTimeout: Double {
        get { lock.withLock { timeout } }
        set { lock.withLock { timeout = newValue } }
    }

    /// True when `address` (an `http://` or `https://` URL) is on a host (and port) allowed.
    package static func allowsRemote(_ address: String) -> Bool {
        guard let allowed = remoteHosts else { return true }
        guard let host = RemoteHost(url: address) else { return false }
        return allowed.contains(host)
    }
}
