import Foundation
import HTTPTypes
import Hummingbird

/// The page at `/`: `Page/index.html`, `style.css` and the ES modules, kept as files in the repository
/// and embedded in the binary when it is built (no CDN, no build step, nothing installed beside
/// the tool).
enum Page {
    /// The page's files by name: the document, its style and its ES modules (one concern each).
    static let files: [String: [UInt8]] = [
        "index.html": PackageResources.index_html,
        "style.css": PackageResources.style_css,
        "api.mjs": PackageResources.api_mjs,
        "app.mjs": PackageResources.app_mjs,
        "camera.mjs": PackageResources.camera_mjs,
        "dom.mjs": PackageResources.dom_mjs,
        "format.mjs": PackageResources.format_mjs,
        "keys.mjs": PackageResources.keys_mjs,
        "list.mjs": PackageResources.list_mjs,
        "player.mjs": PackageResources.player_mjs,
        "results.mjs": PackageResources.results_mjs,
        "state.mjs": PackageResources.state_mjs,
        "timeline.mjs": PackageResources.timeline_mjs,
        "trim.mjs": PackageResources.trim_mjs,
        "uploads.mjs": PackageResources.uploads_mjs,
        "waveform.mjs": PackageResources.waveform_mjs,
    ]

    /// The embedded file `name` as a response (404 for any other name).
    static func response(for name: String) -> Response {
        guard let bytes = files[name] else { return Response(status: .notFound) }
        let headers: HTTPFields = [.contentType: mediaType(of: URL(fileURLWithPath: name)), .cacheControl: "no-store",
                                   .init("Content-Security-Policy")!: "default-src 'self'; media-src 'self' blob:; img-src 'self' data:; frame-ancestors 'none'",
                                   .init("X-Frame-Options")!: "DENY"]
        return Response(status: .ok, headers: headers, body: .init(byteBuffer: ByteBuffer(bytes: bytes)))
    }

    /// The media type of a file by its extension.
    static func mediaType(of url: URL) -> String {
        switch url.pathExtension.lowercased() {
        case "html": return "text/html; charset=utf-8"
        case "js", "mjs": return "text/javascript; charset=utf-8"
        case "css": return "text/css; charset=utf-8"
        case "wav": return "audio/wav"
        case "flac": return "audio/flac"
        case "mp3": return "audio/mpeg"
        case "m4a": return "audio/mp4"
        case "aac": return "audio/aac"
        case "ogg", "oga": return "audio/ogg"
        case "opus": return "audio/ogg"
        case "webm": return "audio/webm"
        case "aiff", "aif": return "audio/aiff"
        case "mp4", "m4v": return "video/mp4"
        case "mov": return "video/quicktime"
        case "mkv": return "video/x-matroska"
        default: return "application/octet-stream"
        }
    }
}
