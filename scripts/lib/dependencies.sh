# Installs what ReverseAudio needs, and nothing that is already there. Sourced by scripts/*.
#   ensure_dependencies build    FFmpeg's -dev libraries, ALSA's (Linux: play's sound output) and pkg-config
#   ensure_dependencies test     + the ffmpeg/ffprobe CLI (the oracle), tmux (play's keyboard test), and for
#                                  MP3 cuts the lame CLI (inputs), mpg123 and SoX's MP3 reader (second decoders),
#                                  GNU parallel (the batch recipes), node (the page's modules: Tests/Page); on Linux also Chromium, its WebDriver,
#                                  Firefox ESR (driven over WebDriver BiDi: no geckodriver is packaged), PulseAudio
#                                  (a null sink: headless Firefox plays only to a sound server) and python3-venv
#                                  (scripts/test-browser: serve's page in two headless browsers)
#   ensure_dependencies bench    + ffmpeg, sox (with MP3 support), GNU time, valgrind (callgrind), and
#                                  PulseAudio with its ALSA plugin (a null sink paces real-time play);
#                                  lame and mp3splt (the MP3 cut peers), nginx (serve's static-file floor)
#   ensure_dependencies samples  + ffmpeg and espeak-ng (to regenerate Audio Files/ and fixtures)
#   ensure_dependencies slurm    + ffmpeg, Slurm and MUNGE, python3 (scripts/test-slurm: a one-node Slurm on localhost)

ensure_dependencies() {
    local purpose=$1
    if ! command -v swift >/dev/null 2>&1; then
        echo "error: swift is not on PATH; install Swift 6 (https://swift.org/install)" >&2
        return 1
    fi
    case "$(uname -s)" in
        Darwin) ensure_macos "$purpose" ;;
        Linux) ensure_debian "$purpose" ;;
        *) echo "error: unsupported system $(uname -s); install FFmpeg's libraries and pkg-config by hand" >&2; return 1 ;;
    esac
}

ensure_debian() {
    local purpose=$1
    local packages=(pkg-config libavformat-dev libavcodec-dev libswresample-dev libavutil-dev libswscale-dev libasound2-dev
                    libfreetype-dev fonts-dejavu-core)
    case "$purpose" in
        test) packages+=(ffmpeg sox libsox-fmt-mp3 time tmux lame mpg123 parallel nodejs chromium chromium-driver firefox-esr pulseaudio
                    python3-venv) ;;
        bench) packages+=(ffmpeg sox libsox-fmt-mp3 time valgrind pulseaudio libasound2-plugins lame mp3splt nginx-light) ;;
        samples) packages+=(ffmpeg espeak-ng) ;;
        slurm) packages+=(ffmpeg slurm-wlm munge python3) ;;
    esac
    if ! command -v dpkg-query >/dev/null 2>&1 || ! command -v apt-get >/dev/null 2>&1; then
        echo "error: this script installs packages with apt (Debian/Ubuntu); install these yourself: ${packages[*]}" >&2
        return 1
    fi
    local missing=()
    local package
    for package in "${packages[@]}"; do
        if ! dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed"; then
            missing+=("$package")
        fi
    done
    if [ ${#missing[@]} -eq 0 ]; then
        return 0
    fi
    local sudo=()
    if [ "$(id -u)" -ne 0 ]; then
        if ! command -v sudo >/dev/null 2>&1; then
            echo "error: need root to install: ${missing[*]} (run as root or install sudo)" >&2
            return 1
        fi
        sudo=(sudo)
    fi
    echo "Installing: ${missing[*]}"
    "${sudo[@]}" apt-get update -qq
    DEBIAN_FRONTEND=noninteractive "${sudo[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
}

ensure_macos() {
    local purpose=$1
    local missing=0
    command -v pkg-config >/dev/null 2>&1 || missing=1
    pkg-config --exists libavformat libavcodec libswresample libavutil libswscale freetype2 2>/dev/null || missing=1
    case "$purpose" in
        test|bench|samples) command -v ffmpeg >/dev/null 2>&1 || missing=1 ;;
    esac
    if [ "$purpose" = bench ] && ! command -v sox >/dev/null 2>&1; then missing=1; fi
    if [ "$purpose" = test ] || [ "$purpose" = bench ]; then
        command -v lame >/dev/null 2>&1 || missing=1
        command -v mpg123 >/dev/null 2>&1 || missing=1
    fi
    if [ "$missing" -ne 0 ]; then
        local extra=""
        [ "$purpose" = test ] && extra=" sox lame mpg123"
        [ "$purpose" = bench ] && extra=" sox lame mpg123 mp3splt"
        [ "$purpose" = samples ] && extra=" espeak-ng"
        echo "error: missing FFmpeg, FreeType or pkg-config. Install them with:" >&2
        echo "    brew install ffmpeg pkg-config freetype$extra" >&2
        return 1
    fi
}
