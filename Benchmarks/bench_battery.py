"""Battery on the servers users run (issue 23), for run-audio.py: CPU and wake-ups of splay beside paplay and mpv
on a plain PulseAudio null sink and on headless PipeWire, each started by scripts/pulse-sandbox for this part.

The main sandbox's low-latency monitor reader makes its null sink ask every player for audio often, which hides
what a player costs on a desktop. A plain null sink (as `pactl load-module module-null-sink` makes it, no reader)
and PipeWire's pulse server behave as users' servers do. On each:

1. playing: each player plays the FLAC to the end, one at a time, the players taking turns round after round;
   CPU (user + system) and context switches (every thread, voluntary and involuntary) from os.wait4's rusage,
   and the server's own CPU time over the same play (/proc/PID/stat), since a player that hands the server work
   (a format it must convert) costs the battery there;
2. quiet: `splay serve` idle and paused, and mpv idle and paused, side by side over one window after they settled
   (bench_mpris.measure_idle, the same contenders as the idle rows of the main table).
"""

import os
import subprocess
import sys
import time
from contextlib import contextmanager
from pathlib import Path

from benchsupport import step

SANDBOX = Path(__file__).resolve().parent.parent / "scripts" / "pulse-sandbox"
SERVERS = {"pulse-plain": "plain PulseAudio", "pipewire": "PipeWire"}


@contextmanager
def sandbox(flavour):
    """Starts the sandbox `flavour` and points PULSE_SERVER at it while entered; stops it on exit."""
    environment = dict(os.environ, SPLAY_SANDBOX=flavour)
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


def measure_battery(rounds, seconds, directory, players, quiet_players, measure_idle):
    """On each server: `rounds` plays of every command in `players` (name → argv), taking turns, and the quiet
    contenders of `quiet_players()` over `seconds` (through bench_mpris's `measure_idle`).

    Returns {server: {"playing": {name: [(cpu s, wake-ups, wall s, server cpu s)]}, "quiet": {...}}}."""
    figures = {}
    for flavour, label in SERVERS.items():
        with sandbox(flavour) as server:
            playing = {name: [] for name in players}
            for round_ in range(rounds):
                for name, command in players.items():
                    step(f"battery, {label}: {name} plays to the end (round {round_ + 1} of {rounds})")
                    playing[name].append(play(command, server))
            quiet = measure_idle(seconds, directory, quiet_players())
        figures[label] = {"playing": playing, "quiet": quiet}
    return figures


def play(command, server):
    """Runs `command` to its end: (user + sys s, context switches, wall s, the server's user + sys s meanwhile)."""
    before = server_cpu(server)
    began = time.monotonic()
    process = subprocess.Popen(command, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    _, status, usage = os.wait4(process.pid, 0)
    wall = time.monotonic() - began
    if os.waitstatus_to_exitcode(status) != 0:
        sys.exit(f"{command[0]} failed ({os.waitstatus_to_exitcode(status)}) playing {command[-1]}")
    return (usage.ru_utime + usage.ru_stime, usage.ru_nvcsw + usage.ru_nivcsw, wall, server_cpu(server) - before)


def server_cpu(pid):
    """The user + system time of process `pid` so far, in seconds (/proc/PID/stat)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def battery_rows(figures, percentile, verdict, file):
    """Per server: CPU and wake-ups playing (splay against paplay on plain PulseAudio, context on PipeWire), and
    the wake-ups of idle and paused players."""
    rows = []
    for label, server in figures.items():
        playing = server["playing"]
        medians = {name: tuple(percentile([run[i] for run in runs], 0.5) for i in range(4))
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
  server's CPU over the same play from its /proc/PID/stat (10 ms ticks). Both send the file's s16. The sink's
  latency is each stream's asking: splay's steady buffer lets it go to 2 s once the server's queue is full,
  paplay leaves it at 2 s. Quiet: `splay serve` idle and paused (with MPRIS on,
  on the private bus), and `mpv --idle` and mpv paused with mpv-mpris, side by side, counted as in the idle rows
  above after {settle:.0f} s of settling (a command's deadline timer fires once, 3 s after it: that is in the
  settling).
"""
