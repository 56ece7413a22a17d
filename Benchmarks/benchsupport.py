"""Helpers shared by the benchmark drivers (run-futures.py, run-player.py)."""

import subprocess
import sys


def step(message):
    """Prints a progress line on stderr, so stdout carries only the table."""
    print(f"==> {message}", file=sys.stderr, flush=True)


def splay_release_flags(root):
    """The flags `make release` builds splay with: the Swift runtime and libstdc++ linked in, and cross-module
    optimization (for the probes measured beside it too)."""
    cxx = subprocess.run([str(root / "scripts" / "static-libstdcxx-dir")], capture_output=True, text=True,
                         check=True).stdout.strip()
    return ["--static-swift-stdlib"] + (["-Xlinker", f"-L{cxx}"] if cxx else []) + CROSS_MODULE


CROSS_MODULE = ["-Xswiftc", "-cross-module-optimization"]


def run(command, **kwargs):
    """Runs a command; a failure ends the driver with the command line."""
    result = subprocess.run(command, **kwargs)
    if result.returncode != 0:
        sys.exit(f"failed ({result.returncode}): {' '.join(command)}")
    return result


def median_of(path):
    """The 50th percentile of a histogramPercentiles export (lines of "percentile<TAB>value")."""
    for line in path.read_text().splitlines()[1:]:
        percentile, value = line.split("\t")
        if percentile == "50":
            return float(value)
    raise ValueError(f"no median in {path}")


def update_section(path, table, start_marker, end_marker, name):
    """Replaces what lies between the two marker lines of `path` with `table`, if both markers are there."""
    if not path.exists():
        step(f"{path} does not exist; not updated")
        return
    text = path.read_text()
    start, end = text.find(start_marker), text.find(end_marker)
    if start < 0 or end < start:
        step(f"{path} has no {start_marker} ... {end_marker} section; not updated")
        return
    updated = text[: start + len(start_marker)] + "\n" + table.rstrip("\n") + "\n" + text[end:]
    path.write_text(updated)
    step(f"rewrote the {name} section of {path}")
