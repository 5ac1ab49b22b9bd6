import ReverseAudioCLI

// The tool without the web server: `serve` hands its command line to `reverse-audio-serve`.
await ReverseAudioCommand.runAsTool()
