"""ReplayGain's cost while playing (issue 34), for run-audio.py: splay's CPU with ReplayGain on beside off.

With ReplayGain on, splay scales each decoded sample (a 16-bit file stays 16-bit: a fixed-point factor, rounded);
off, the samples go out as decoded. Both play the same tagged copy of the FLAC sweep with `splay play --json`, taking
turns; the CPU is every thread's time on a CPU (/proc/PID/task/*/schedstat, nanoseconds) over a window in the
middle of the play, so that the start and exit, the same in both, do not dilute the difference.
"""

import shutil
import subprocess
import sys
import time
from pathlib import Path

from benchsupport import step


def cpu_ns(pid):
    """Nanoseconds every thread of process `pid` has run so far (threads that ended are not counted, as in
    bench_mpris.snapshot: splay's threads live as long as the play). The schedstat clock is in nanoseconds; the
    utime and stime of /proc/PID/stat, which would count them, tick in 10 ms."""
    total = 0
    try:
        tasks = list(Path(f"/proc/{pid}/task").iterdir())
    except (FileNotFoundError, ProcessLookupError):
        return total
    for task in tasks:
        try:
            total += int((task / "schedstat").read_text().split()[0])
        except (FileNotFoundError, ProcessLookupError):
            continue
    return total


def measure_replaygain(rounds, file, directory, splay, window):
    """`rounds` plays of a copy of `file` tagged with a -6 dB track gain, ReplayGain off and on in turn.

    Returns {"off": [ms of CPU a second], "on": [...], "window": window}."""
    tagged = Path(directory) / f"replaygain-{Path(file).name}"
    shutil.copyfile(file, tagged)
    subprocess.run(["metaflac", "--set-tag=REPLAYGAIN_TRACK_GAIN=-6.00 dB", str(tagged)], check=True)
    runs = {"off": [], "on": []}
    for round_ in range(rounds):
        for mode, extra in (("off", []), ("on", ["--replaygain", "track"])):
            step(f"ReplayGain {mode}: splay plays {tagged.name} (round {round_ + 1} of {rounds})")
            runs[mode].append(play(splay + extra + [str(tagged)], window))
    runs["window"] = window
    return runs


def play(command, window):
    """Runs `command` to its end; its CPU over `window` (seconds after the start) in ms per second."""
    began = time.monotonic()
    process = subprocess.Popen(command, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    time.sleep(max(0.0, began + window[0] - time.monotonic()))
    first, opened = cpu_ns(process.pid), time.monotonic()
    time.sleep(max(0.0, began + window[1] - time.monotonic()))
    last, closed = cpu_ns(process.pid), time.monotonic()
    if process.wait() != 0:
        sys.exit(f"{command[0]} failed ({process.returncode}) playing {command[-1]}")
    return (last - first) / 1e6 / (closed - opened)


def replaygain_rows(figures, percentile, verdict, file):
    """The row: splay's CPU a second while it plays with ReplayGain on, beside off, and the difference."""
    off = percentile(figures["off"], 0.5)
    on = percentile(figures["on"], 0.5)
    change = (on - off) / off * 100 if off else 0.0
    first, last = figures["window"]
    return [[f"CPU while it plays `{file}` with ReplayGain on (track gain −6 dB), {first:g}–{last:g} s into the play "
             "(median, ms of CPU a second)", f"{on:.2f} ms ({change:+.1f} % of off)", f"splay with it off {off:.2f} ms",
             "within 5 % of off", verdict(change <= 5, f"{change:+.1f} %")]]


REPLAYGAIN_NOTES = """\
- ReplayGain (issue 34): {rounds} round(s) of `splay play --json` playing a copy of {file} tagged with a track gain
  of −6 dB, with `--replaygain track` and without, in turn, on the main sandbox; the CPU of every thread
  (/proc/PID/task/*/schedstat, ns) over {first:g}–{last:g} s into each play. Both send the 16-bit file as 16-bit
  samples; on, each is scaled in place (a fixed-point factor, rounded: SSE2's pmaddwd, CSampleGain).
"""
