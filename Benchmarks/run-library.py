#!/usr/bin/env python3
"""The library index (issue 35) on a 100,000-file tree, beside the peers a user has without splay's index.

The tree is 1,000 folders of 100 files, each a hard link to one of a few copies of a short FLAC (no disk space; the
page cache holds it, as it would a collection read a moment before). Figures, each from spawn to exit of the
release `splay-library` (the program `splay library` and `splay search` become):
- the first scan (`splay library add`): the walk, and every file's tags read by the decoders that play it;
- a scan with nothing changed (the walk, one stat per file, the index's stamps);
- a search that finds one album (100 tracks), beside `find -ipath` over the tree (no index) and the `sqlite3`
  shell running the same FTS5 query on the same index (SQLite's own floor, with its process start); and the same
  search inside one process (LibraryProbe: the index opened once, the query alone);
- a search that finds every track (100,000 paths sorted and printed), for scale;
- `splay info` over the whole tree answered from the index, beside the same command with no index (every file
  opened by the decoders).

With --update-doc, the table replaces what lies between `<!-- library-bench:start -->` and
`<!-- library-bench:end -->` of that file.
"""

import argparse
import datetime
import json
import os
import platform
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_collection import FILES_PER_FOLDER, make_tree  # noqa: E402
from benchsupport import run, splay_release_flags, step, update_section  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
LIBRARY = ROOT / ".build" / "release" / "splay-library"
SPLAY = ROOT / ".build" / "release" / "splay"
PACKAGE = ROOT / "Benchmarks"
PROBE = PACKAGE / ".build" / "release" / "LibraryProbe"
SOURCE = ROOT / "fixtures" / "media" / "short-44k-stereo.flac"
FOLDERS = 1_000
FILES = FOLDERS * FILES_PER_FOLDER


def timed(command, environment, expect_lines=None):
    """Seconds from spawn to exit of `command`; fails the run when it fails or prints an unexpected count."""
    start = time.monotonic()
    result = subprocess.run(command, env=environment, capture_output=True, text=True)
    seconds = time.monotonic() - start
    if result.returncode != 0:
        sys.exit(f"failed ({result.returncode}): {' '.join(command)}\n{result.stderr}")
    if expect_lines is not None and len(result.stdout.splitlines()) != expect_lines:
        sys.exit(f"{' '.join(command)}: {len(result.stdout.splitlines())} lines, expected {expect_lines}")
    return seconds


def median(values):
    return sorted(values)[len(values) // 2]


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--quick", action="store_true", help="fewer rounds")
    parser.add_argument("--update-doc", metavar="FILE", help="rewrite the library-bench section of FILE")
    parser.add_argument("--swift", default=os.environ.get("SWIFT", "swift"), help="the swift driver to use")
    parser.add_argument("--skip-build", action="store_true", help="use the binary already built")
    options = parser.parse_args()
    run([str(ROOT / "scripts" / "install-deps"), "sqlite3"])
    if not options.skip_build:
        step("building splay and splay-library (release, as `make release` builds them) and LibraryProbe")
        run([options.swift, "build", "-c", "release", "-j", "1", "--package-path", str(ROOT), "--product", "splay"]
            + splay_release_flags(ROOT))
        run([options.swift, "build", "-c", "release", "-j", "1", "--package-path", str(ROOT), "--static-swift-stdlib",
             "--product", "splay-library"])
        run([options.swift, "build", "-c", "release", "-j", "1", "--package-path", str(PACKAGE),
             "--product", "LibraryProbe"])
    rounds = 5 if options.quick else 21
    with tempfile.TemporaryDirectory(prefix="splay-library-bench-") as directory:
        step(f"building a {FILES:,}-file folder tree")
        tree = make_tree(directory, SOURCE, FOLDERS)
        environment = dict(os.environ, XDG_CACHE_HOME=f"{directory}/cache", XDG_STATE_HOME=f"{directory}/state")
        index = f"{directory}/cache/splay/library.sqlite"
        step("first scan")
        first = timed([str(LIBRARY), "add", str(tree)], environment)
        step("scans with nothing changed")
        again = median([timed([str(LIBRARY), "scan"], environment) for _ in range(3 if options.quick else 5)])
        step(f"searches: {rounds} of each")
        query = "album 517"
        searches = {"splay": [], "find": [], "sqlite3": []}
        everything = []
        fts = ("SELECT track.path FROM track_text JOIN track ON track.id = track_text.rowid "
               "WHERE track_text MATCH '\"album\" AND \"517\"';")
        for _ in range(rounds):
            searches["splay"].append(timed([str(LIBRARY), "search", query], environment, 100))
            searches["find"].append(timed(["find", str(tree), "-ipath", "*album 517/*"], environment, 100))
            searches["sqlite3"].append(timed(["sqlite3", "-readonly", index, fts], environment, 100))
        for _ in range(max(3, rounds // 4)):
            everything.append(timed([str(LIBRARY), "search", "flac"], environment, FILES))
        step("splay info over the tree, from the index and from the files")
        info_index = timed([str(SPLAY), "info", str(tree)], environment, FILES)
        no_index = dict(environment, XDG_CACHE_HOME=f"{directory}/no-cache")
        info_files = timed([str(SPLAY), "info", str(tree)], no_index, FILES)
        probe = json.loads(subprocess.run([str(PROBE), index, str(rounds), query], capture_output=True, text=True,
                                          check=True).stdout)
        if probe["found"] != 100:
            sys.exit(f"LibraryProbe found {probe['found']} tracks, expected 100")
    ms = {name: median(values) * 1000 for name, values in searches.items()}
    rows = [
        [f"First scan of {FILES:,} files (`splay library add`: walk, tags read by the decoders)", f"{first:.1f} s",
         "—", "report", "—"],
        [f"Scan of the same {FILES:,} files, nothing changed (median of {3 if options.quick else 5})",
         f"{again:.2f} s", "—", "≤ 3 s", "yes" if again <= 3 else f"**no** ({again:.2f} s > 3 s)"],
        [f"Search over {FILES:,} tracks finding one album of 100, in the open process (LibraryProbe, median)",
         f"{median(probe['search_ms']):.2f} ms", f"(opening the index: {probe['open_ms']:.1f} ms)", "≤ 10 ms",
         "yes" if median(probe["search_ms"]) <= 10 else f"**no** ({median(probe['search_ms']):.2f} ms > 10 ms)"],
        [f"The same search as a command (`splay-library search`, median from spawn to exit)",
         f"{ms['splay']:.1f} ms", f"`find -ipath` {ms['find']:.1f} ms; `sqlite3` shell, same FTS5 query "
         f"{ms['sqlite3']:.1f} ms", "—", "—"],
        [f"Search finding all {FILES:,} tracks (sorted, printed; median)", f"{median(everything) * 1000:.0f} ms", "—",
         "—", "—"],
        [f"`splay info` over the {FILES:,} files, answered from the index (spawn to exit, once)", f"{info_index:.2f} s",
         f"the same with no index (every file opened): {info_files:.1f} s", "—", "—"],
    ]
    when = datetime.datetime.now().strftime("%Y-%m-%d %H:%M")
    heading = (f"Library index, measured {when} on {os.cpu_count()} cores, {platform.machine()}, load average "
               f"{os.getloadavg()[0]:.1f}; {'quick' if options.quick else 'full'} run (`Benchmarks/run-library.py`), "
               "release build, warm page cache.")
    lines = [heading, "", "| Measurement | splay | Peers (same run) | Target | Met? |", "|---|---|---|---|---|"]
    lines += ["| " + " | ".join(row) + " |" for row in rows]
    table = "\n".join(lines) + "\n"
    print(table)
    if options.update_doc:
        update_section(Path(options.update_doc), table, "<!-- library-bench:start -->", "<!-- library-bench:end -->",
                       "library-bench")


if __name__ == "__main__":
    main()
