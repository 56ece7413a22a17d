#!/usr/bin/env python3
"""Measures splay's Futures beside the bare Mutex floor and the peers, in one run, and prints a Markdown table.

Issue 8's Futures rows: W1-W4 and memory run in-process under ordo-one/benchmark (Benchmarks/FuturesBenchmarks);
W5 runs in Sources/FuturesProbe, one child process per contender, because some peers overflow the stack on a
1,000,000-step chain and must not take the run down with them. Every figure is the median of its samples, and
is shown beside the floor's figure from the same run as a ratio, because absolute times drift on a shared
machine. Targets are issue 3's; a miss is printed as a miss.

    Benchmarks/run-futures.py [--quick] [--update-doc docs/performance.md] [--swift swift] [--jobs 1]

With --update-doc, the table replaces whatever lies between the lines `<!-- futures-bench:start -->` and
`<!-- futures-bench:end -->` of that file; a file without both markers is left alone.
"""

import argparse
import datetime
import json
import os
import platform
import re
import shutil
import subprocess

from benchsupport import median_of, run, step, update_section
import sys
import time
from pathlib import Path

PACKAGE = Path(__file__).resolve().parent
SWIFT_DRIVER = os.environ.get("SWIFT", "swift")
RESULTS = PACKAGE / ".build" / "futures-bench-results"
REPORT = PACKAGE / ".build" / "futures-bench.md"
START_MARKER = "<!-- futures-bench:start -->"
END_MARKER = "<!-- futures-bench:end -->"

CONTENDERS = ["splay", "floor", "opencombine", "nio", "continuation"]
HEADINGS = {
    "splay": "splay",
    "floor": "bare Mutex floor",
    "opencombine": "OpenCombine",
    "nio": "NIO (Embedded)",
    "continuation": "continuation + Task",
}
PEERS = ["opencombine", "nio", "continuation"]

# Rows: key, label, unit, absolute target for splay (None: none set), and the text of the target column.
ROWS = [
    ("W1", "W1 create + 1 callback + resolve", "ns", 150, "≤ 150 ns"),
    ("W2", "W2 one map step, resolved future", "ns", 150, "≤ 150 ns"),
    ("W3", "W3 per callback, 100,000 on one future", "ns", 100, "≤ 100 ns"),
    ("W4", "W4 two threads, 1,000,000 futures, none lost", "ns", None, "none lost"),
    ("W5", "W5 per step, 1,000,000-step chain on a pending future", "ns", None, "works"),
    ("Memory", "Memory per pending future with 1 callback", "B", 160, "≤ 160 B"),
]

# Why a contender has no figure on a row, where that is by design rather than by failure.
NOT_APPLICABLE = {
    ("W4", "nio"): "n/a¹",
    ("W4", "continuation"): "n/a²",
}

NOTES = """\
Median of each benchmark's samples, per operation; × is the ratio to the bare Mutex floor measured in the
same run (below 1× is faster than the floor). Memory is the bytes requested from malloc (ordo-one's malloc
interposer) per pending future holding one callback, everything that keeps it pending included, with the
number of allocations beside it. A splay target is met only when its absolute figure holds, it is within
1.5× of the floor and it is ahead of every peer that has a figure.

- Floor: a ~40-line generic future, a `Mutex` around an optional value and an array of callbacks
  (Benchmarks/Sources/FuturePeers/BareFuture.swift); no failure, cancellation or stack safety.
- OpenCombine 0.14.0: `Future` observed with `sink`; a map step is a new `Future` fed by a `sink` on the
  previous one (chaining the `map` operator overflows the stack at 1,000 stages, see OpenCombineContender.swift).
- NIO 2.101.3: `EventLoopFuture` on an `EmbeddedEventLoop`, whose callbacks run inline.
  ¹ An `EmbeddedEventLoop` may only be used from the thread that created it.
- Continuation: a `Task` suspended in `withCheckedContinuation`, resumed through a small Mutex slot; a map step
  is a `Task` awaiting the previous one. ² A continuation has exactly one waiter, the task that made it.
- W5 runs in a child process per contender; "crashes (stack overflow)" means the process took a SIGSEGV inside
  the main thread's stack guard (8 MiB stack), as its signal handler checked.
"""


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--quick", action="store_true", help="fewer samples; the whole run stays under 2 minutes")
    parser.add_argument("--update-doc", metavar="FILE", help="rewrite the futures-bench section of FILE")
    parser.add_argument("--swift", default=os.environ.get("SWIFT", "swift"), help="the swift driver to use")
    parser.add_argument("--jobs", default="1", help="build jobs (the machine has 2 cores and is shared)")
    parser.add_argument("--skip-build", action="store_true", help="use the binaries already built")
    options = parser.parse_args()
    global SWIFT_DRIVER
    SWIFT_DRIVER = options.swift

    if not options.skip_build:
        step("building the benchmarks (release)")
        run([options.swift, "build", "-c", "release", "-j", options.jobs, "--package-path", str(PACKAGE)])

    started = time.monotonic()
    in_process = run_in_process(options)
    chains = {name: run_chain(name, options.quick) for name in CONTENDERS}
    elapsed = time.monotonic() - started

    table = render(in_process, chains, options.quick)
    REPORT.write_text(table)
    print()
    print(table)
    step(f"measured in {elapsed:.0f} s after the build; table also in {REPORT.relative_to(PACKAGE.parent)}")

    if options.update_doc:
        update_readme(Path(options.update_doc), table)






def run_in_process(options):
    """Runs FuturesBenchmarks through the benchmark plugin; returns {(row, contender): (value, extra)}."""
    step("running W1-W4 and memory in-process" + (" (quick)" if options.quick else ""))
    shutil.rmtree(RESULTS, ignore_errors=True)
    RESULTS.mkdir(parents=True)
    environment = dict(os.environ, SPLAY_BENCH_QUICK="1" if options.quick else "0")
    log = RESULTS / "benchmark.log"
    with log.open("w") as output:
        result = subprocess.run(
            [options.swift, "package", "-j", options.jobs, "--package-path", str(PACKAGE),
             "--allow-writing-to-package-directory", "benchmark", "run", "--target", "FuturesBenchmarks",
             "--format", "histogramPercentiles", "--path", str(RESULTS), "--no-progress"],
            stdout=output, stderr=subprocess.STDOUT, env=environment)
    if result.returncode != 0:
        print(log.read_text()[-4000:], file=sys.stderr)
        sys.exit(f"the in-process benchmarks failed ({result.returncode}); full log in {log}")

    # Current_run.FuturesBenchmarks.W1_splay_1000.wallClock.histogram.percentiles.tsv
    pattern = re.compile(r"\.FuturesBenchmarks\.(W\d|Memory)_([a-z]+)_(\d+)\.(\w+)\.histogram\.percentiles\.tsv$")
    medians = {}
    for path in RESULTS.iterdir():
        match = pattern.search(path.name)
        if match:
            row, contender, operations, metric = match.groups()
            medians[(row, contender, metric)] = median_of(path) / int(operations)
    figures = {}
    for (row, contender, metric), value in medians.items():
        if metric == "wallClock":
            figures[(row, contender)] = (value, None)
        elif metric == "mallocBytesCount":
            figures[(row, contender)] = (value, medians.get((row, contender, "mallocCountTotal")))
    return figures




def run_chain(name, quick):
    """Runs W5 for one contender in its own process; returns ns per step or the reason there is none."""
    step(f"W5 in a child process: {name}")
    probe = PACKAGE / ".build" / "release" / "FuturesProbe"
    repeats = "1" if quick else "3"
    environment = dict(os.environ, SWIFT_BACKTRACE="enable=no")
    try:
        result = subprocess.run([str(probe), name, "1000000", repeats], capture_output=True, text=True,
                                env=environment, timeout=120 if quick else 400)
    except subprocess.TimeoutExpired:
        return "times out"
    if result.returncode == 0:
        steps = sorted(json.loads(result.stdout)["ns_per_step"])
        return steps[len(steps) // 2]
    if result.returncode == 86 and "stack overflow" in result.stderr:
        return "crashes (stack overflow)"
    if result.returncode < 0:
        return f"crashes (signal {-result.returncode})"
    return f"fails (exit {result.returncode}: {result.stdout.strip() or result.stderr.strip()[:80]})"


def render(in_process, chains, quick):
    figures = dict(in_process)
    for name, outcome in chains.items():
        figures[("W5", name)] = (outcome, None)

    header = ["Workload"] + [HEADINGS[name] for name in CONTENDERS] + ["splay target", "splay"]
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    for key, label, unit, limit, target_text in ROWS:
        floor = number(figures.get((key, "floor")))
        cells = [label]
        for name in CONTENDERS:
            cells.append(cell(key, name, figures.get((key, name)), floor, unit))
        cells.append(f"{target_text}; ≤ 1.5× floor; ahead of peers")
        cells.append(verdict(key, figures, floor, limit, unit))
        lines.append("| " + " | ".join(cells) + " |")

    when = datetime.datetime.now().strftime("%Y-%m-%d %H:%M")
    swift = subprocess.run([SWIFT_DRIVER, "--version"], capture_output=True, text=True).stdout.splitlines()
    machine = f"{os.cpu_count()} cores, {platform.machine()}, {swift[0] if swift else 'swift'}"
    mode = "quick run (`make bench-quick`)" if quick else "full run (`make bench`)"
    return "\n".join([f"Futures, measured {when} on {machine}; {mode}.", "", *lines, "", NOTES])


def number(figure):
    if figure is None or not isinstance(figure[0], (int, float)):
        return None
    return figure[0]


def cell(key, name, figure, floor, unit):
    if figure is None:
        return NOT_APPLICABLE.get((key, name), "missing")
    value, extra = figure
    if not isinstance(value, (int, float)):
        return value
    text = f"{value:,.0f} {unit}" if value >= 10 else f"{value:.1f} {unit}"
    if extra is not None:
        text += f" ({extra:.1f} allocs)"
    if floor:
        text += f" · {value / floor:.2f}×"
    return text


def verdict(key, figures, floor, limit, unit):
    splay = figures.get((key, "splay"))
    if splay is None:
        return "**miss**: not measured"
    value = splay[0]
    if not isinstance(value, (int, float)):
        return f"**miss**: {value}"
    misses = []
    if limit is not None and value > limit:
        misses.append(f"{value:.0f} {unit} > {limit} {unit}")
    if floor and value > 1.5 * floor:
        misses.append(f"{value / floor:.2f}× floor")
    behind = [HEADINGS[peer] for peer in PEERS if number(figures.get((key, peer))) is not None
              and number(figures.get((key, peer))) <= value]
    if behind:
        misses.append("not ahead of " + ", ".join(behind))
    return "met" if not misses else "**miss**: " + "; ".join(misses)


def update_readme(path, table):
    update_section(path, table, START_MARKER, END_MARKER, "futures-bench")


if __name__ == "__main__":
    main()
