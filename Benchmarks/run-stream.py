#!/usr/bin/env python3
"""First audio of a local HTTP stream (issue 35), splay beside mpv (and mpg123 for the MP3 file), each given the
same URL of fixtures/servers/radio.py on 127.0.0.1: an MP3 file the server serves in ranges, and a live WAV
station (a 1 s burst, then real time, as Icecast sends). Each figure is the median, over round-robin spawns, of
the time from spawn to the first non-silent frame at the private null sink's monitor (run-audio.py's Monitor).
Run it under scripts/with-pulse-sandbox after `make release`; with --update-doc the table replaces what lies
between `<!-- stream-bench:start -->` and `<!-- stream-bench:end -->` of that file.
"""

import argparse
import datetime
import importlib.util
import os
import platform
import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from benchsupport import run, step, update_section  # noqa: E402

PACKAGE = Path(__file__).resolve().parent
ROOT = PACKAGE.parent
SERVER = ROOT / "fixtures" / "servers" / "radio.py"


def audio_bench():
    """run-audio.py as a module (its name has a hyphen): the Monitor, first_audio and the players."""
    spec = importlib.util.spec_from_file_location("run_audio", PACKAGE / "run-audio.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--quick", action="store_true", help="fewer rounds")
    parser.add_argument("--update-doc", metavar="FILE", help="rewrite the stream-bench section of FILE")
    options = parser.parse_args()
    audio = audio_bench()
    audio.check_sandbox()
    if not audio.SPLAY.exists():
        sys.exit(f"{audio.SPLAY} is not built: make release")
    run([str(ROOT / "scripts" / "install-deps"), "mpv", "mpg123"])
    rounds = 3 if options.quick else 15
    server = subprocess.Popen(["python3", str(SERVER)], stdout=subprocess.PIPE, text=True)
    port = int(server.stdout.readline())
    urls = {
        "MP3 file served in ranges (`sweep-30s.mp3`)": f"http://127.0.0.1:{port}/files/sweep-30s.mp3",
        # A new stream per spawn ({n}): the server takes a second request for one stream as a reconnect.
        "live WAV station (1 s burst, then real time)": f"http://127.0.0.1:{port}/live.wav?seconds=30&spawn={{n}}",
    }
    figures = {}
    monitor = audio.Monitor()
    try:
        for label, url in urls.items():
            contenders = {"splay": [str(audio.SPLAY), "play", "--json", url], "mpv": audio.MPV + [url]}
            if url.endswith(".mp3"):
                contenders["mpg123"] = ["mpg123", "-q", "-o", "pulse", url]
            step(f"first audio of a local HTTP stream, {label}: {rounds} spawns per player")
            figures[label] = {name: [] for name in contenders}
            for round in range(rounds):
                for name, command in contenders.items():
                    spawn = [part.replace("{n}", f"{name}-{round}") for part in command]
                    figures[label][name].append(audio.first_audio(monitor, spawn))
    finally:
        monitor.stop()
        server.terminate()
    rows = []
    for label, results in figures.items():
        medians = {name: audio.percentile(values, 0.5) for name, values in results.items()}
        missing = {name: sum(v is None for v in values) for name, values in results.items()}
        peers = "; ".join(f"`{name}` {audio.ms(value)}" + (f" ({missing[name]} without audio)" if missing[name] else "")
                          for name, value in medians.items() if name != "splay")
        splay = medians["splay"]
        met = splay is not None and splay <= 150
        rows.append([f"First audio of a local HTTP stream, {label} (median from spawn)", audio.ms(splay), peers,
                     "≤ 150 ms", audio.verdict(met, f"{audio.ms(splay)} > 150 ms")])
    when = datetime.datetime.now().strftime("%Y-%m-%d %H:%M")
    heading = (f"Streams, measured {when} on {os.cpu_count()} cores, {platform.machine()}, load average "
               f"{os.getloadavg()[0]:.1f}; {'quick' if options.quick else 'full'} run (`Benchmarks/run-stream.py`), "
               f"{rounds} spawns per player, release build, against the private null-sink server of "
               "scripts/pulse-sandbox; the server is fixtures/servers/radio.py on 127.0.0.1.")
    lines = [heading, "", "| Measurement | splay | Peers (same run) | Target | Met? |", "|---|---|---|---|---|"]
    lines += ["| " + " | ".join(row) + " |" for row in rows]
    table = "\n".join(lines) + "\n"
    print(table)
    if options.update_doc:
        update_section(Path(options.update_doc), table, "<!-- stream-bench:start -->", "<!-- stream-bench:end -->",
                       "stream-bench")


if __name__ == "__main__":
    main()
