#!/usr/bin/env python3
"""Measures PlayerCore's command cost and decoding speed beside their floor and peers, in one run.

Issue 4's performance rows, as issue 8 asks for them:
- the controller's cost per command on the simulated output with immediate acknowledgement, pipelined (its
  work) and awaited one by one (the latency a caller sees), each through the public API beside a bare
  dispatch-queue floor measured in the same process;
- the 30 s FLAC fixture decoded to float by splay's `SndfileDecoder`, in-process and as a whole process
  (Sources/DecodeProbe), beside `flac -d` and `sox` decoding the same file to /dev/null.

The in-process figures come from ordo-one/benchmark (Benchmarks/PlayerCoreBenchmarks), medians of their
samples. The whole-process figures are wall times of child processes run round-robin (probe, flac, sox,
probe, ...) after one untimed round, so the file is in the page cache for all of them and any drift of the
shared machine is spread evenly; each figure is the median of its rounds.

    Benchmarks/run-player.py [--quick] [--update-doc docs/performance.md] [--swift swift] [--jobs 1] [--skip-build]

With --update-doc, the table replaces whatever lies between the lines `<!-- player-bench:start -->` and
`<!-- player-bench:end -->` of that file; a file without both markers is left alone.
"""

import argparse
import datetime
import json
import os
import platform
import re
import shutil
import statistics
import subprocess

from benchsupport import median_of, run, step, update_section
import sys
import time
from pathlib import Path

PACKAGE = Path(__file__).resolve().parent
ROOT = PACKAGE.parent
FLAC = ROOT / "fixtures" / "media" / "sweep-30s.flac"
RESULTS = PACKAGE / ".build" / "player-bench-results"
REPORT = PACKAGE / ".build" / "player-bench.md"
START_MARKER = "<!-- player-bench:start -->"
END_MARKER = "<!-- player-bench:end -->"

COMMAND_TARGET_NS = 2_000
DECODE_TARGET = 200  # × real time

NOTES = """\
In-process rows: median of ordo-one/benchmark samples (a sample is 1,000 commands, or one whole decode,
opening the file included). Whole-process rows: median wall time of the processes, run round-robin in the
same run; process start-up is part of every figure. × real time is 30 s of audio over the decoding time.
Absolute command times on this shared two-core machine vary several-fold from run to run with how busy the
other core is (a sleeping thread must be woken for every awaited command); compare each with its floor.

- Command: `PlayerController` on `SimulatedOutput(clock: VirtualClock())` with immediate acknowledgement and
  a synthetic 30 s track loaded; alternating `volume 40` / `volume 60`. Overhead (the target row): 1,000
  commands sent without waiting, then the last one awaited, per command: the controller's own work (the
  hand-over to its queue, the state machine, the output call, the confirmed state, the future settled and
  the observers told); its floor is 1,000 jobs on a serial queue, each adding to a locked total, the last
  resuming the awaiting task. Latency: the same commands, each awaited with `await future.settled` before
  the next is sent: a sleeping queue thread is woken for the command and then the awaiting task is woken for
  the answer, which costs tens of microseconds on this machine whatever the work is; its floor is exactly
  that with no work, a `withCheckedContinuation` resumed from `DispatchQueue.async` on a serial queue, so the
  difference from the floor (± the machine's noise) is the controller's part.
- Decode: `SndfileDecoder` reading interleaved float in 4,096-frame chunks (PulseOutput's chunk), in-process
  and as `DecodeProbe` (Benchmarks/Sources/DecodeProbe). Peers: `flac -d -c -s FILE > /dev/null` (writes
  16-bit WAV, no float conversion) and `sox FILE -t f32 /dev/null` (float, like splay).
"""


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--quick", action="store_true", help="fewer samples; the whole run stays under 2 minutes")
    parser.add_argument("--update-doc", metavar="FILE", help="rewrite the player-bench section of FILE")
    parser.add_argument("--swift", default=os.environ.get("SWIFT", "swift"), help="the swift driver to use")
    parser.add_argument("--jobs", default="1", help="build jobs (the machine has 2 cores and is shared)")
    parser.add_argument("--skip-build", action="store_true", help="use the binaries already built")
    options = parser.parse_args()

    # The peers are Debian packages; install-deps installs only what is missing.
    run([str(ROOT / "scripts" / "install-deps"), "flac", "sox"])
    if not options.skip_build:
        step("building the benchmarks (release)")
        run([options.swift, "build", "-c", "release", "-j", options.jobs, "--package-path", str(PACKAGE)])

    started = time.monotonic()
    in_process = run_in_process(options)
    processes = run_processes(options.quick)
    elapsed = time.monotonic() - started

    table = render(in_process, processes, options)
    REPORT.write_text(table)
    print()
    print(table)
    step(f"measured in {elapsed:.0f} s after the build; table also in {REPORT.relative_to(ROOT)}")

    if options.update_doc:
        update_readme(Path(options.update_doc), table)






def run_in_process(options):
    """Runs PlayerCoreBenchmarks through the benchmark plugin; returns {(row, contender): ns per operation}."""
    step("running the command and decoding benchmarks in-process" + (" (quick)" if options.quick else ""))
    shutil.rmtree(RESULTS, ignore_errors=True)
    RESULTS.mkdir(parents=True)
    environment = dict(os.environ, SPLAY_BENCH_QUICK="1" if options.quick else "0", SPLAY_BENCH_FLAC=str(FLAC))
    log = RESULTS / "benchmark.log"
    with log.open("w") as output:
        result = subprocess.run(
            [options.swift, "package", "-j", options.jobs, "--package-path", str(PACKAGE),
             "--allow-writing-to-package-directory", "benchmark", "run", "--target", "PlayerCoreBenchmarks",
             "--format", "histogramPercentiles", "--path", str(RESULTS), "--no-progress"],
            stdout=output, stderr=subprocess.STDOUT, env=environment)
    if result.returncode != 0:
        print(log.read_text()[-4000:], file=sys.stderr)
        sys.exit(f"the in-process benchmarks failed ({result.returncode}); full log in {log}")

    # Current_run.PlayerCoreBenchmarks.Command_splay_1000.wallClock.histogram.percentiles.tsv
    pattern = re.compile(r"\.PlayerCoreBenchmarks\.([A-Za-z]+)_([a-z]+)_(\d+)\.wallClock\.histogram\.percentiles\.tsv$")
    figures = {}
    for path in RESULTS.iterdir():
        match = pattern.search(path.name)
        if match:
            row, contender, operations = match.groups()
            figures[(row, contender)] = median_of(path) / int(operations)
    return figures




def run_processes(quick):
    """Times splay's DecodeProbe, flac and sox on the fixture, round-robin; returns {name: [seconds]}."""
    rounds = 7 if quick else 25
    step(f"decoding {FLAC.name} as whole processes, {rounds} rounds round-robin")
    probe = PACKAGE / ".build" / "release" / "DecodeProbe"
    commands = {
        "splay": [str(probe), str(FLAC)],
        "flac": ["flac", "-d", "-c", "-s", str(FLAC)],
        "sox": ["sox", str(FLAC), "-t", "f32", "/dev/null"],
    }
    # The untimed first round also checks that every decoder reads the whole file without an error.
    checked = subprocess.run(commands["splay"], capture_output=True, text=True)
    report = json.loads(checked.stdout or "{}")
    if checked.returncode != 0 or report.get("frames") != report.get("expected"):
        sys.exit(f"DecodeProbe failed ({checked.returncode}): {checked.stdout.strip()} {checked.stderr.strip()}")
    for name in ("flac", "sox"):
        run(commands[name], stdout=subprocess.DEVNULL)
    times = {name: [] for name in commands}
    for _ in range(rounds):
        for name, command in commands.items():
            began = time.perf_counter()
            result = subprocess.run(command, stdout=subprocess.DEVNULL)
            took = time.perf_counter() - began
            if result.returncode != 0:
                sys.exit(f"{name} failed ({result.returncode}) while timed")
            times[name].append(took)
    times["audio_seconds"] = report["seconds_of_audio"]
    return times


def render(in_process, processes, options):
    audio = processes["audio_seconds"]
    command = in_process.get(("Command", "splay"))
    floor = in_process.get(("Command", "dispatch"))
    pipelined = in_process.get(("Pipelined", "splay"))
    pipelined_floor = in_process.get(("Pipelined", "dispatch"))
    decode_ns = in_process.get(("Decode", "splay"))
    whole = {name: statistics.median(processes[name]) for name in ("splay", "flac", "sox")}

    def speed(seconds):
        return f"{audio / seconds:,.0f}× real time ({seconds * 1e3:.1f} ms)"

    def command_verdict():
        if pipelined is None:
            return "**miss**: not measured"
        return "met" if pipelined <= COMMAND_TARGET_NS else f"**miss**: {pipelined / 1e3:.2f} µs > 2 µs"

    def decode_verdict(seconds):
        if seconds is None:
            return "**miss**: not measured"
        factor = audio / seconds
        return "met" if factor >= DECODE_TARGET else f"**miss**: {factor:.0f}× < {DECODE_TARGET}×"

    def micro(ns):
        return "missing" if ns is None else f"{ns / 1e3:.2f} µs"

    floor_cell = f"bare `DispatchQueue.async` round trip: {micro(floor)}"
    if command is not None and floor:
        floor_cell += f" (splay {command / floor:.2f}× the floor, {(command - floor) / 1e3:+.2f} µs)"
    peers_cell = f"`flac -d`: {speed(whole['flac'])}; `sox` to f32: {speed(whole['sox'])}"
    decode_seconds = decode_ns / 1e9 if decode_ns else None
    rows = [
        ["Controller overhead per command: its work, commands pipelined (SimulatedOutput, immediate ack)",
         micro(pipelined), f"bare `DispatchQueue.async` jobs, pipelined: {micro(pipelined_floor)}", "≤ 2 µs",
         command_verdict()],
        ["Latency of one awaited command (context: two thread wake-ups)", micro(command), floor_cell, "—", "—"],
        ["Decode 30 s FLAC to float, in-process (`SndfileDecoder`)",
         speed(decode_seconds) if decode_seconds else "missing", peers_cell, "≥ 200× real time",
         decode_verdict(decode_seconds)],
        ["Decode 30 s FLAC, whole process (`DecodeProbe`)", speed(whole["splay"]), peers_cell, "≥ 200× real time",
         decode_verdict(whole["splay"])],
    ]
    header = ["Measurement", "splay", "Floor / peers (same run)", "Target", "Met?"]
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    lines += ["| " + " | ".join(row) + " |" for row in rows]

    when = datetime.datetime.now().strftime("%Y-%m-%d %H:%M")
    swift = subprocess.run([options.swift, "--version"], capture_output=True, text=True).stdout.splitlines()
    machine = f"{os.cpu_count()} cores, {platform.machine()}, {swift[0] if swift else 'swift'}"
    mode = "quick run (`make bench-quick`)" if options.quick else "full run (`make bench`)"
    load = os.getloadavg()[0]
    heading = f"PlayerCore, measured {when} on {machine}, load average {load:.1f}; {mode}."
    return "\n".join([heading, "", *lines, "", NOTES])


def update_readme(path, table):
    update_section(path, table, START_MARKER, END_MARKER, "player-bench")


if __name__ == "__main__":
    main()
