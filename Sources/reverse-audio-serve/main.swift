import ReverseAudioCLI

// The tool with the web server linked in, which `reverse-audio serve` runs in its place.
ServeCommand.server = ServerLaunch.run
await ReverseAudioCommand.runAsTool()
