import CFFmpeg

/// The format context's `io_open` for one input: the input's own open is let through (with the
/// protocols its kind may use), every other open FFmpeg asks for (a playlist's entries, an
/// image pattern's files) is refused unless the input may be a playlist, and every remote
/// open is refused when its address, or the one its redirects ended at, is not on an allowed
/// host. Installed through the context's `opaque`; the owner must outlive the context.
final class NestedOpenGuard {
    /// The URL the input itself was opened by.
    let inputURL: String
    /// True when the input may open what it names (a playlist its user allowed).
    let allowsNested: Bool
    /// The protocols an open may use: `file` (and `pipe`) for a local input, HTTP(S) for a remote one.
    let protocols: String
    /// Why the last refused open was refused, for the error the open then reports.
    private(set) var refusal: String?

    init(inputURL: String, allowsNested: Bool, protocols: String) {
        self.inputURL = inputURL
        self.allowsNested = allowsNested
        self.protocols = protocols
    }

    /// Installs this guard as `context`'s `io_open`.
    func install(in context: UnsafeMutablePointer<AVFormatContext>) {
        context.pointee.opaque = Unmanaged.passUnretained(self).toOpaque()
        context.pointee.io_open = { context, pb, url, flags, options in
            guard let context, let pb, let url, let opaque = context.pointee.opaque else { return ra_averror_eperm() }
            let guarding = Unmanaged<NestedOpenGuard>.fromOpaque(opaque).takeUnretainedValue()
            return guarding.open(context, pb, String(cString: url), flags, options)
        }
    }

    private func open(_ context: UnsafeMutablePointer<AVFormatContext>, _ pb: UnsafeMutablePointer<UnsafeMutablePointer<AVIOContext>?>,
                      _ url: String, _ flags: Int32, _ options: UnsafeMutablePointer<OpaquePointer?>?) -> Int32 {
        let isInput = url == inputURL
        if !isInput && !allowsNested {
            refusal = "it names other files or addresses to read (a playlist or an indirection), which are not opened"
            return ra_averror_eperm()
        }
        let remote = LocalPath.isRemote(url)
        if remote && !InputRules.allowsRemote(url) {
            refusal = "it names an address on a host that is not allowed"
            return ra_averror_eperm()
        }
        if !remote && protocols.hasPrefix("http") {
            refusal = "a remote input names a local file"
            return ra_averror_eperm()
        }
        let opened: Int32
        if let options {
            av_dict_set(options, "protocol_whitelist", protocols, 0)
            opened = avio_open2(pb, url, flags, &context.pointee.interrupt_callback, options)
        } else {
            var local: OpaquePointer?
            av_dict_set(&local, "protocol_whitelist", protocols, 0)
            opened = avio_open2(pb, url, flags, &context.pointee.interrupt_callback, &local)
            av_dict_free(&local)
        }
        guard opened >= 0 else { return opened }
        // FFmpeg's HTTP client follows redirects itself: where it ended is checked before a
        // byte of the answer is read.
        if remote, let pbContext = pb.pointee, let location = Self.location(of: pbContext), !InputRules.allowsRemote(location) {
            avio_closep(pb)
            refusal = "its address redirects to a host that is not allowed"
            return ra_averror_eperm()
        }
        return opened
    }

    /// The address an HTTP input's answer came from, after redirects.
    private static func location(of io: UnsafeMutablePointer<AVIOContext>) -> String? {
        var value: UnsafeMutablePointer<UInt8>?
        guard av_opt_get(io, "location", AV_OPT_SEARCH_CHILDREN, &value) >= 0, let value else { return nil }
        defer { av_free(value) }
        return String(cString: value)
    }
}
