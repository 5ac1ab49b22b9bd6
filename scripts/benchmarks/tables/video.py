"""Video reversal (`--tables video` or --video): a 1080p30 (or --video-size) H.264 input with 250-frame GOPs and AAC audio,
reversed by ours (`reverse-audio video`) and by `ffmpeg -vf reverse -af areverse` with the same x264
preset and CRF, next to ffmpeg's forward encode (the floor: x264's own memory and time). --video-long
adds a 20-minute input, ours only (ffmpeg's reverse filter would need about 110 GiB of memory for
it), to show flat memory."""

import os
import shutil
import statistics
import subprocess

from ..cells import pass_or_miss, ratio, value
from ..console import show as show_table, text_table
from ..inputs import warm_cache
from ..machine import available_memory
from .. import markdown
from ..markdown import kept_section, markdown_table, raw_line, verdict_lines
from ..runner import MIB, Command, log_walls, run_round_robin
from ..shell import log, run

NAME = "video"
HELP = "video (reversing a 1080p video)"
REPLACEABLE = True
HEADING = "## Video reversal"


VIDEO_MEMORY_LIMIT_MIB = 32  # reverse-audio video's default --memory-limit
VIDEO_RSS_OVER_FORWARD_MIB = 64  # issue 23: peak RSS ≤ the forward encode's + 64 MiB
VIDEO_WALL_OVER_FORWARD = 1.05  # issue 23: wall ≤ 1.05× the forward encode
VIDEO_WALL_RATIO_LIMIT = 1.3
VIDEO_FLAT_MIB = 32
VIDEO_HEADERS = ["input", "s ours", "s arev", "s fwd", "ours÷fwd", "ours÷arev", "cpu ours", "cpu arev", "cpu fwd", "cpu ours÷arev",
                 "RSS ours", "RSS arev", "RSS fwd", "ours−fwd RSS", "tmp ours", "same pictures", "frames"]
VIDEO_LEGEND = ("s: wall seconds; cpu: user + system CPU seconds (what the work costs, whatever else the machine "
                "runs); RSS: peak resident memory, MiB; tmp ours: peak size of our temporary files, MiB "
                "(the pictures that do not fit in --memory-limit, at most two groups': the one being encoded and the one being "
                "decoded; and the reversed audio's PCM, "
                "which grows with the length: 21 MiB a minute of stereo float for an AAC output); arev = "
                "`ffmpeg -i X -vf reverse -af areverse`, fwd = `ffmpeg -i X` (forward: the floor for x264's own time "
                "and memory), all three with libx264 at the same preset and CRF and AAC audio; ours−fwd RSS: what ours holds beyond "
                "x264's own share (the forward encode's peak); same pictures: the "
                "MD5 of our decoded video equals that of arev's; frames: ours against the input's.")
VIDEO_METHOD = """\
The input is lavfi's `testsrc2` pattern at 1920×1080 (or --video-size), 30 fps, with temporal noise (so x264 has real
work), encoded once by the ffmpeg CLI (libx264 veryfast CRF 23, a keyframe every 250 frames, scene
cuts off) with a 440 Hz stereo AAC track at 128 kb/s, and cached; the 20-minute input is ten copies
of a 2-minute one joined with the concat demuxer (`-c copy`). Commands: ours `reverse-audio video X
out.mp4 --preset P --crf C -y --progress none` (default --memory-limit 32 MiB), `ffmpeg -i X -vf
reverse -af areverse -c:v libx264 -preset P -crf C -c:a aac -b:a 128k -movflags +faststart
out.mp4`, and the same without the two filters. The input is read once into the page cache, then
each command runs --video-runs times round-robin (1 by default: an encode takes minutes), measured
as the tables above (`/usr/bin/time`, the disk watcher). ffmpeg's reverse filter is skipped when
the machine's available memory cannot hold the decoded clip."""
VIDEO_NOTE = """Peak memory is x264's own (the forward encode's RSS: its lookahead holds about 40 pictures at
`medium`, 10 at `veryfast`, each several times a decoded one) plus at most --memory-limit of
decoded pictures, whatever the length; ffmpeg's reverse filter holds every picture of the clip.
The next group is decoded on its own thread while x264 encodes the current one, as a forward
encode overlaps its decoder and x264."""


def make_video_input(work, minutes, size="1920x1080"):
    folder = work / "inputs"
    folder.mkdir(parents=True, exist_ok=True)
    height = size.split("x")[-1]
    path = folder / f"video-{minutes:g}min-{height}p30.mp4"
    if path.exists():
        return path
    partial = folder / f".video-{minutes:g}min-{height}p.partial.mp4"
    if minutes > 2 and minutes % 2 == 0:
        # Copies of the 2-minute input, joined without re-encoding (each starts with a keyframe).
        two = make_video_input(work, 2, size)
        listing = folder / "video-concat.txt"
        listing.write_text("".join(f"file '{two}'\n" for _ in range(int(minutes // 2))))
        log(f"== joining {minutes:g} minutes of video from {two.name}")
        run(["ffmpeg", "-nostdin", "-v", "error", "-y", "-f", "concat", "-safe", "0", "-i", str(listing), "-c", "copy",
             str(partial)])
        listing.unlink()
    else:
        seconds = minutes * 60
        log(f"== making {path.name} (x264 veryfast; a few minutes)")
        run(["ffmpeg", "-nostdin", "-v", "error", "-y",
             "-f", "lavfi", "-i", f"testsrc2=s={size}:r=30:d={seconds},noise=alls=6:allf=t",
             "-f", "lavfi", "-i", f"sine=f=440:d={seconds}", "-ac", "2",
             "-c:v", "libx264", "-preset", "veryfast", "-crf", "23", "-g", "250", "-keyint_min", "250", "-sc_threshold", "0",
             "-c:a", "aac", "-b:a", "128k", "-shortest", str(partial)])
    os.replace(partial, path)
    return path


def video_frames(path):
    """The video stream's frame count, from its packets (no decoding)."""
    done = subprocess.run(["ffprobe", "-v", "error", "-select_streams", "v:0", "-count_packets", "-show_entries",
                           "stream=nb_read_packets", "-of", "csv=p=0", str(path)], capture_output=True, text=True)
    try:
        return int(done.stdout.strip().split(",")[0])
    except ValueError:
        return None


def video_md5(path):
    done = subprocess.run(["ffmpeg", "-nostdin", "-v", "error", "-i", str(path), "-map", "0:v:0", "-f", "md5", "-"],
                          capture_output=True, text=True)
    return done.stdout.strip() if done.returncode == 0 else None


def measure_video(binary, source, minutes, preset, args, work, with_ffmpeg=True):
    width, height = (int(part) for part in args.video_size.split("x"))
    run_dir = work / "run-video"
    crf = f"{args.video_crf:g}"
    x264 = ["-c:v", "libx264", "-preset", preset, "-crf", crf, "-c:a", "aac", "-b:a", "128k", "-movflags", "+faststart"]

    def dirs(name):
        return run_dir / name / "out", run_dir / name / "tmp"

    def timed(name, argv):
        # CPU seconds of every run, appended by an inner GNU time (the outer one measures RSS).
        return ["/usr/bin/time", "-a", "-f", "%U %S", "-o", str(run_dir / name / "cpu.txt"), *argv]

    commands = {}
    out, tmp = dirs("ours")
    commands["ours"] = Command("ours", timed("ours", [str(binary), "video", str(source), str(out / "out.mp4"), "--preset",
                                                      preset, "--crf", crf, "-y", "--progress", "none"]),
                               out, tmp, out / "out.mp4", True)
    skipped = None
    if with_ffmpeg:
        decoded = (video_frames(source) or 0) * width * height * 3 // 2
        if available_memory() < decoded * 1.2 + (2 << 30):
            skipped = (f"ffmpeg -vf reverse skipped: it would hold about {decoded / 2 ** 30:.1f} GiB of pictures and "
                       f"{available_memory() / 2 ** 30:.1f} GiB are available")
            log(f"   {skipped}")
        else:
            out, tmp = dirs("arev")
            commands["arev"] = Command("arev", timed("arev", ["ffmpeg", "-nostdin", "-v", "error", "-y", "-i", str(source),
                                                              "-vf", "reverse", "-af", "areverse", *x264, str(out / "out.mp4")]),
                                       out, tmp, out / "out.mp4", False)
        out, tmp = dirs("fwd")
        commands["fwd"] = Command("fwd", timed("fwd", ["ffmpeg", "-nostdin", "-v", "error", "-y", "-i", str(source), *x264,
                                                        str(out / "out.mp4")]), out, tmp, out / "out.mp4", False)
    shutil.rmtree(run_dir, ignore_errors=True)
    for name in commands:
        (run_dir / name).mkdir(parents=True)
    warm_cache(source)
    order = list(commands.values())
    run_round_robin(order, args.video_runs, warm_up=False)
    for name, command in commands.items():
        try:
            lines = (run_dir / name / "cpu.txt").read_text().split("\n")
            command.cpu = [sum(float(field) for field in line.split()[-2:]) for line in lines if len(line.split()) >= 2]
        except (OSError, ValueError):
            command.cpu = []
    log_walls(order)
    ours = commands["ours"]
    same = None
    frames = None
    if ours.failure is None:
        frames = (video_frames(ours.output), video_frames(source))
        if "arev" in commands and commands["arev"].failure is None:
            same = video_md5(ours.output) == video_md5(commands["arev"].output)
    row = {"minutes": minutes, "label": f"{minutes:g} min {height}p30, {preset}", "preset": preset, "commands": commands, "same": same,
           "frames": frames, "skipped": skipped}
    shutil.rmtree(run_dir, ignore_errors=True)
    return row


def video_cells(row):
    c = row["commands"]
    same = {True: "yes", False: "NO", None: "n/a"}[row["same"]]
    frames = row["frames"]
    frames_text = "-" if not frames else f"{frames[0]}/{frames[1]}" + ("" if frames[0] == frames[1] else " NO")
    ratio_text = ratio(c, "ours", "arev") if "arev" in c else "n/a"
    forward_text = ratio(c, "ours", "fwd") if "fwd" in c else "n/a"
    over = "n/a"
    if "fwd" in c and c["fwd"].peak_rss is not None and c["ours"].peak_rss is not None:
        over = f"{c['ours'].peak_rss - c['fwd'].peak_rss:+.0f}"
    temp = c["ours"].peak_temp_files

    def cpu(name):
        command = c.get(name)
        return "n/a" if command is None else (f"{statistics.median(command.cpu):.1f}" if getattr(command, "cpu", None) else "-")

    cpu_ratio = "n/a"
    if "arev" in c and getattr(c["arev"], "cpu", None) and getattr(c["ours"], "cpu", None):
        cpu_ratio = f"{statistics.median(c['ours'].cpu) / statistics.median(c['arev'].cpu):.2f}×"
    return [row["label"], value(c, "ours", "wall", 1), value(c, "arev", "wall", 1), value(c, "fwd", "wall", 1), forward_text, ratio_text,
            cpu("ours"), cpu("arev"), cpu("fwd"), cpu_ratio, value(c, "ours", "peak_rss", 1), value(c, "arev", "peak_rss", 1), value(c, "fwd", "peak_rss", 1), over,
            "-" if temp is None else f"{temp:.0f}", same, frames_text]


def video_targets(rows):
    results = []
    measured = [row for row in rows if row["commands"]["ours"].peak_rss is not None]
    if not measured:
        return [("MISS", "no video row was measured")]
    for row in measured:
        c = row["commands"]
        if "fwd" in c and c["fwd"].peak_rss is not None:
            bound = c["fwd"].peak_rss + VIDEO_RSS_OVER_FORWARD_MIB
            results.append((pass_or_miss(c["ours"].peak_rss <= bound),
                            f"{row['label']}: ours peak RSS ≤ the forward encode's + {VIDEO_RSS_OVER_FORWARD_MIB} MiB "
                            f"({bound:.0f} MiB): {c['ours'].peak_rss:.0f} MiB"))
        if "fwd" in c and c["fwd"].wall and c["ours"].wall:
            share = c["ours"].wall / c["fwd"].wall
            results.append((pass_or_miss(share <= VIDEO_WALL_OVER_FORWARD),
                            f"{row['label']}: ours wall ≤ {VIDEO_WALL_OVER_FORWARD}× the forward encode: {share:.2f}×"))
    for row in measured:
        c = row["commands"]
        if "arev" in c and c["arev"].wall and c["ours"].wall:
            share = c["ours"].wall / c["arev"].wall
            results.append((pass_or_miss(share <= VIDEO_WALL_RATIO_LIMIT),
                            f"{row['label']}: ours wall ≤ {VIDEO_WALL_RATIO_LIMIT}× ffmpeg -vf reverse: {share:.2f}×"))
        if "arev" in c and getattr(c["arev"], "cpu", None) and getattr(c["ours"], "cpu", None):
            share = statistics.median(c["ours"].cpu) / statistics.median(c["arev"].cpu)
            results.append((pass_or_miss(share <= VIDEO_WALL_RATIO_LIMIT),
                            f"{row['label']}: ours CPU time ≤ {VIDEO_WALL_RATIO_LIMIT}× ffmpeg -vf reverse's: {share:.2f}×"))
        if row["same"] is not None:
            results.append((pass_or_miss(row["same"]), f"{row['label']}: the same pictures as ffmpeg -vf reverse"))
        if row.get("skipped"):
            results.append(("n/a", f"{row['label']}: {row['skipped']}"))
    for preset in dict.fromkeys(row["preset"] for row in measured):
        same_preset = [row for row in measured if row["preset"] == preset]
        if len({row["minutes"] for row in same_preset}) < 2:
            continue
        rss = [row["commands"]["ours"].peak_rss for row in same_preset]
        results.append((pass_or_miss(max(rss) - min(rss) <= VIDEO_FLAT_MIB),
                        f"ours RSS flat across lengths at {preset} (within {VIDEO_FLAT_MIB} MiB): "
                        + ", ".join(f"{row['minutes']:g} min {row['commands']['ours'].peak_rss:.0f} MiB" for row in same_preset)))
    return results


def add_arguments(parser):
    parser.add_argument("--video", action="store_true",
                        help="also (or, with --tables video, only) reverse a 1080p30 H.264 video against ffmpeg -vf reverse")
    parser.add_argument("--video-long", action="store_true",
                        help="with --video, also reverse a 20-minute 1080p30 video (ours only; about half an hour)")
    parser.add_argument("--video-minutes", type=float, default=2, help="length of the video input (default 2)")
    parser.add_argument("--video-long-minutes", type=float, default=20, help="length of the long video (default 20)")
    parser.add_argument("--video-presets", default="medium",
                        help="x264 presets, one row each, every command of a row at the same one (default medium)")
    parser.add_argument("--video-long-preset", help="x264 preset of the long video's row (default: the first of --video-presets)")
    parser.add_argument("--video-crf", type=float, default=18, help="x264 CRF for every video command (default 18)")
    parser.add_argument("--video-size", default="1920x1080", help="the video input's picture size, WxH (default 1920x1080)")
    parser.add_argument("--video-runs", type=int, default=1, help="timed runs of each video command (default 1)")


def asked_for(args):
    """--video and --video-long add this table to --tables."""
    return args.video or args.video_long


def check_arguments(parser, args):
    if args.video_runs < 1:
        parser.error("--video-runs must be at least 1")
    size = args.video_size.split("x")
    if len(size) != 2 or not all(part.isdigit() and int(part) > 0 for part in size):
        parser.error("--video-size: write WxH, such as 1280x720")
    args.video_preset_list = [item.strip() for item in args.video_presets.split(",") if item.strip()]
    if not args.video_preset_list:
        parser.error("--video-presets: name at least one x264 preset")


def measure(context):
    args, binary, work = context.args, context.binary, context.work
    rows = []
    source = make_video_input(work, args.video_minutes, args.video_size)
    for preset in args.video_preset_list:
        log(f"== video {source.name} ({source.stat().st_size / MIB:.0f} MiB), {preset}: "
            f"{args.video_runs} round-robin run(s)")
        rows.append(measure_video(binary, source, args.video_minutes, preset, args, work))
    if args.video_long:
        source = make_video_input(work, args.video_long_minutes, args.video_size)
        preset = args.video_long_preset or args.video_preset_list[0]
        log(f"== video {source.name} ({source.stat().st_size / MIB:.0f} MiB), {preset}: ours only")
        rows.append(measure_video(binary, source, args.video_long_minutes, preset, args, work, with_ffmpeg=False))
    return {"rows": rows, "verdicts": video_targets(rows)}


def show(context, result):
    args = context.args
    if result["rows"]:
        show_table(f"Video reversal (presets {args.video_presets}, CRF {args.video_crf:g}, {args.video_runs} run(s) each).",
                   VIDEO_LEGEND, text_table(result["rows"], VIDEO_HEADERS, video_cells), result["verdicts"])


def section(context, result):
    args, loads = context.args, context.loads
    rows = [] if result is None else result["rows"]
    if not rows:
        kept = kept_section(HEADING, "run with --video to measure it again")
        return kept or [HEADING, "", "Not measured yet: run `scripts/bench --video --write` (add --video-long for 20 minutes).",
                        "", VIDEO_METHOD]
    measured = (f"Measured {markdown.timestamp()} at commit {markdown.current_commit()}, "
                f"presets {args.video_presets}, CRF {args.video_crf:g}, {args.video_runs} run(s) each "
                f"(load average {loads[0]} before all runs, {loads[1]} after; other work on the machine skews wall times).")
    text = [HEADING, "", measured, "", VIDEO_METHOD, "", VIDEO_LEGEND, "",
            markdown_table(rows, VIDEO_HEADERS, video_cells), "", *verdict_lines(result["verdicts"]), "",
            VIDEO_NOTE, "",
            "Raw timings (seconds, in run order):", ""]
    text += [raw_line(row["label"], row["commands"]) for row in rows]
    return text
