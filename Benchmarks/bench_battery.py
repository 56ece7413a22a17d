"""Battery on the servers users run (issue 23), for run-audio.py: CPU and wake-ups of splay beside paplay and mpv
on a plain PulseAudio null sink and on headless PipeWire, each started by scripts/pulse-sandbox for this part.

The main sandbox's low-latency monitor reader makes its null sink ask every player for audio often, which hides
what a player costs on a desktop. A plain null sink (as `pactl load-module module-null-sink` makes it, no reader)
and PipeWire's pulse server behave as users' servers do. On each:

1. playing: each player plays the FLAC to the end, one at a time, the players taking turns round after round;
   CPU (user + system) and context switches (every thread, voluntary and involuntary) from os.wait4's rusage,
   and the server's own CPU time over the same play (/proc/PID/stat), since a player that hands the server work
   (a format it must convert) costs the battery there. Over a window in the middle of the play, the same from
   the threads' /proc/PID/task (bench_mpris.snapshot): what a player costs while it plays, without the burst of
   its start and exit, which run while the CPU is awake anyway;
2. quiet: `splay serve` idle and paused, and mpv idle and paused, side by side over one window after they settled
   (bench_mpris.measure_idle, the same contenders as the idle rows of the main table).
"""

import os
import subprocess
import sys
import time
from contextlib import contextmanager
from pathlib import Path

from bench_mpris import idle_figures, snapshot
from benchsupport import step

SANDBOX = Path(__file__).resolve().parent.parent / "scripts" / "pulse-sandbox"
SERVERS = {"pulse-plain": "plain PulseAudio", "pipewire": "PipeWire"}


@contextmanager
def sandbox(flavour):
    """Starts the sandbox `flavour` and points PULSE_SERVER at it while entered; stops it on exit."""
    # The plain null sink itself, not the tests' truth sink, which also writes what it plays to a file.
    environment = dict(os.environ, SPLAY_SANDBOX=flavour, SPLAY_TRUTH_SINK="0")
    started = subprocess.run([str(SANDBOX), "start"], env=environment, capture_output=True, text=True)
    if started.returncode != 0:
        sys.exit(f"scripts/pulse-sandbox could not start the {flavour} server: {started.stderr.strip()}")
    address = started.stdout.strip().splitlines()[-1].removeprefix("PULSE_SERVER=")
    pid = subprocess.run([str(SANDBOX), "pid"], env=environment, capture_output=True, text=True).stdout.strip()
    previous = os.environ.get("PULSE_SERVER")
    os.environ["PULSE_SERVER"] = address
    try:
        yield int(pid)
    finally:
        os.environ["PULSE_SERVER"] = previous or ""
        if previous is None:
            del os.environ["PULSE_SERVER"]
        subprocess.run([str(SANDBOX), "stop"], env=environment, capture_output=True)


def measure_battery(rounds, seconds, directory, players, window, quiet_players, measure_idle):
    """On each server: `rounds` plays of every command in `players` (name → argv), taking turns, measured whole
    and over `window` (seconds from the start), and the quiet contenders of `quiet_players()` over `seconds`
    (through bench_mpris's `measure_idle`).

    Returns {server: {"playing": {name: [(cpu s, wake-ups, wall s, server cpu s, steady)]}, "quiet": {...},
    "window": window}}, steady being (cpu s, wake-ups) per second over the window, or None."""
    figures = {}
    for flavour, label in SERVERS.items():
        with sandbox(flavour) as server:
            playing = {name: [] for name in players}
            for round_ in range(rounds):
                for name, command in players.items():
                    step(f"battery, {label}: {name} plays to the end (round {round_ + 1} of {rounds})")
                    playing[name].append(play(command, server, window))
            quiet = measure_idle(seconds, directory, quiet_players())
        figures[label] = {"playing": playing, "quiet": quiet, "window": window}
    return figures


def play(command, server, window):
    """Runs `command` to its end: (user + sys s, context switches, wall s, the server's user + sys s meanwhile,
    (cpu s, context switches) per second over `window` or None when it ended before the window did)."""
    before = server_cpu(server)
    began = time.monotonic()
    process = subprocess.Popen(command, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    steady = steady_rates(process.pid, began, window)
    _, status, usage = os.wait4(process.pid, 0)
    wall = time.monotonic() - began
    if os.waitstatus_to_exitcode(status) != 0:
        sys.exit(f"{command[0]} failed ({os.waitstatus_to_exitcode(status)}) playing {command[-1]}")
    return (usage.ru_utime + usage.ru_stime, usage.ru_nvcsw + usage.ru_nivcsw, wall, server_cpu(server) - before,
            steady if wall > window[1] else None)


def steady_rates(pid, began, window):
    """CPU s and context switches (voluntary and involuntary, every thread) per second of process `pid` between
    `window`'s two times (seconds after `began`); the process is not reaped here, so its /proc stays readable."""
    first, last = window
    time.sleep(max(0.0, began + first - time.monotonic()))
    start, opened = snapshot(pid), time.monotonic()
    time.sleep(max(0.0, began + last - time.monotonic()))
    figures = idle_figures(start, snapshot(pid), time.monotonic() - opened)
    return (figures["cpu_ms"] / 1e3 / figures["seconds"],
            (figures["wakeups"] + figures["preempted"]) / figures["seconds"])


def server_cpu(pid):
    """The user + system time of process `pid` so far, in seconds (/proc/PID/stat)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def battery_rows(figures, percentile, verdict, file):
    """Per server: CPU and wake-ups playing (splay against paplay on plain PulseAudio, context on PipeWire), whole
    and in the steady window, and the wake-ups of idle and paused players."""
    rows = []
    for label, server in figures.items():
        playing = server["playing"]
        medians = {name: tuple(percentile([run[i] for run in runs], 0.5) for i in range(4))
                   for name, runs in playing.items()}
        steady = {name: tuple(percentile([run[4][i] for run in runs if run[4]], 0.5) for i in range(2))
                  for name, runs in playing.items()}
        rates = {name: percentile([run[1] / run[2] for run in runs], 0.5) for name, runs in playing.items()}
        target = label == "plain PulseAudio"
        splay_cpu, _, _, splay_server = medians["splay"]
        paplay_cpu = medians["paplay"][0]
        peers = "; ".join(f"`{name}` {cpu:.3f} s (server {server_cpu_:.3f} s)"
                          for name, (cpu, _, _, server_cpu_) in medians.items() if name != "splay")
        rows.append([f"CPU to play `{file}` to the end, {label} (median; the server's CPU meanwhile)",
                     f"{splay_cpu:.3f} s (server {splay_server:.3f} s)", peers,
                     *(["≤ paplay's", verdict(splay_cpu <= paplay_cpu,
                                              f"{splay_cpu:.3f} s > paplay's {paplay_cpu:.3f} s")]
                       if target else ["— (context)", "—"])])
        peers = "; ".join(f"`{name}` {rate:.1f}" for name, rate in rates.items() if name != "splay")
        rows.append([f"Wake-ups per second playing it, {label} (median)", f"{rates['splay']:.1f}", peers,
                     *(["≤ paplay's", verdict(rates["splay"] <= rates["paplay"],
                                              f"{rates['splay']:.1f}/s > paplay's {rates['paplay']:.1f}/s")]
                       if target else ["— (context)", "—"])])
        first, last = server["window"]

        def steady_cell(name):
            cpu, rate = steady[name]
            return "—" if rate is None else f"{rate:.1f} ({cpu * 1e3:.2f} ms of CPU a second)"

        peers = "; ".join(f"`{name}` {steady_cell(name)}" for name in steady if name != "splay")
        rate, paplay_rate = steady["splay"][1], steady["paplay"][1]
        rows.append([f"Wake-ups per second while it plays, {first:g}–{last:g} s into the play, {label} (median; "
                     "CPU)", steady_cell("splay"), peers,
                     *(["≤ paplay's", verdict(rate is not None and paplay_rate is not None and rate <= paplay_rate,
                                              f"{rate or 0:.1f}/s > paplay's {paplay_rate or 0:.1f}/s")]
                       if target else ["— (context)", "—"])])
        quiet = server["quiet"]
        for state in ("idle", "paused"):
            splay = quiet[f"splay {state}"]
            mpv = quiet[f"mpv {state}"]
            rows.append([f"Wake-ups of `splay serve` (MPRIS on) {state}, {label}, over {splay['seconds']:.0f} s",
                         f"{splay['wakeups']} ({splay['cpu_ms']:.2f} ms on a CPU)",
                         f"mpv {state} + mpv-mpris: {mpv['wakeups']} ({mpv['cpu_ms']:.2f} ms)", "0",
                         verdict(splay["wakeups"] == 0, f"{splay['wakeups']} wake-ups")])
    return rows


BATTERY_NOTES = """\
- Battery (issue 23): on a plain PulseAudio null sink (`SPLAY_SANDBOX=pulse-plain`: s16le, no monitor reader, so
  it renders in blocks of up to 2 s when idle and at the latency its streams ask for while they play) and on
  headless PipeWire with WirePlumber (`SPLAY_SANDBOX=pipewire`, 48 kHz), each started for this part. Playing:
  {rounds} round(s) of {files}, played to the end by `splay play --json`, `paplay` and mpv in turn; CPU and
  wake-ups (context switches of every thread) from `os.wait4`'s rusage, wake-ups per second over the wall time,
  which on the plain sink includes up to 2 s of waiting for the block in progress before the first sound; the
  server's CPU over the same play from its /proc/PID/stat (10 ms ticks). While it plays: the same players'
  threads over a window in the middle of each play (/proc/PID/task, as the idle rows), without the start-up and
  exit, whose bursts of thread hand-overs run while the CPU is awake anyway. Both send the file's s16. The sink's
  latency is each stream's asking: splay's steady buffer lets it go to 2 s once the server's queue is full,
  paplay leaves it at 2 s. Quiet: `splay serve` idle and paused (with MPRIS on,
  on the private bus), and `mpv --idle` and mpv paused with mpv-mpris, side by side, counted as in the idle rows
  above after {settle:.0f} s of settling (a command's deadline timer fires once, 3 s after it: that is in the
  settling).
"""
