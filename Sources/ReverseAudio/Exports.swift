// One import for the whole library: the contracts and model (ReverseAudioCore), their FFmpeg
// implementations (ReverseAudioFFmpeg), playback and video, and the operations in this module.
@_exported import ReverseAudioCore
@_exported import ReverseAudioFFmpeg
@_exported import ReverseAudioPlayback
@_exported import ReverseAudioVideo
