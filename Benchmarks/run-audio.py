#!/usr/bin/env python3
"""Measures splay as a whole process on the real audio path, beside paplay, mpv and mpg123, in one run.

Issue 8's player rows and issue 5's performance rows, against the private null-sink server of
scripts/pulse-sandbox (run this under scripts/with-pulse-sandbox, as `make bench` does; it refuses to run
without PULSE_SERVER, so it never measures against a user's own server):

1. first audio: from spawning the player to the first non-silent sample at the sink's monitor;
2. CPU time (user + sys, os.wait4's rusage) and peak RSS (VmHWM) to play the 30 s FLAC and the 30 s MP3 to
   the end;
3. acknowledgement latency of pause, resume, seek and volume, request to reply: splay through its socket
   (`splay serve`), splay through the controller API (Benchmarks/Sources/ControlProbe) and mpv through its
   JSON IPC socket; beside them, the server alone (Benchmarks/Sources/PulseFloorProbe: a bare libpulse client
   timing the operations those commands wait for) and each socket's round trip for a request that does nothing;
4. honesty, at the monitor: from the reply to pause to silence, the error between a seek's requested position
   and the content that first arrives after it, and the audio lost or repeated across pause and resume
   (splay through its socket, and mpv);
5. MPRIS (issue 21, Benchmarks/bench_mpris.py): PlayPause's round trip over D-Bus (Benchmarks/Sources/MPRISProbe)
   on splay and on mpv with Debian's mpv-mpris plugin, beside each one's socket in the same rounds, and the CPU
   and wake-ups of idle players on the bus.
6. battery (issue 23, Benchmarks/bench_battery.py): CPU and wake-ups playing, idle and paused, beside paplay
   and mpv, on a plain PulseAudio null sink and on headless PipeWire, each started for that part.

Every player runs on a private D-Bus session bus that the script starts (bench_mpris.PrivateBus), so splay
runs with MPRIS on, as users run it, and nothing on the user's own bus sees the players under test.

How the monitor is read: `parec` records `splay_null.monitor` (float, 44.1 kHz stereo, the sink's own format,
5 ms latency) into a pipe; a thread stamps every chunk with CLOCK_MONOTONIC when it arrives, and a frame's
time is the arrival of its chunk. That is never earlier than the audio reached the monitor (back-dating frames
by their place in the chunk is not: the sink renders whole blocks ahead of time, and such an estimate put
silence before the pause that caused it). The recorder is flowing before any player starts, and every player
is spawned with the clock read just before the spawn.

    Benchmarks/run-audio.py [--quick] [--update-doc docs/performance.md] [--swift swift] [--jobs 1] [--skip-build]

With --update-doc, the table replaces whatever lies between the lines `<!-- audio-bench:start -->` and
`<!-- audio-bench:end -->` of that file; a file without both markers is left alone.
"""

import argparse
import bisect
import datetime
import json
import os
import platform
import random
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

from bench_battery import BATTERY_NOTES, battery_rows, measure_battery
from bench_replaygain import REPLAYGAIN_NOTES, measure_replaygain, replaygain_rows
from bench_collection import collection_rows, measure_collection
from bench_mpris import (MPRIS_NOTES, MPV_BUS_NAME, MPV_MPRIS, SETTLE, SPLAY_BUS_NAME, PrivateBus, measure_idle,
                         measure_mpris, mpris_rows)
from benchsupport import CROSS_MODULE, run, splay_release_flags, step, update_section

try:
    import numpy
except ImportError:
    sys.exit("run-audio.py needs numpy (pip install numpy) to analyse the recordings")

PACKAGE = Path(__file__).resolve().parent
ROOT = PACKAGE.parent
MEDIA = ROOT / "fixtures" / "media"
SPLAY = ROOT / ".build" / "release" / "splay"
PROBE = PACKAGE / ".build" / "release" / "ControlProbe"
FLOOR = PACKAGE / ".build" / "release" / "PulseFloorProbe"
REPORT = PACKAGE / ".build" / "audio-bench.md"
RAW = PACKAGE / ".build" / "audio-bench.json"  # every sample of the last run, for a closer look
START_MARKER = "<!-- audio-bench:start -->"
END_MARKER = "<!-- audio-bench:end -->"
SUMMARY_START = "<!-- bench-summary:start -->"
SUMMARY_END = "<!-- bench-summary:end -->"

RATE = 44_100  # the sandbox sink's rate; every fixture used here is 44.1 kHz stereo
SILENCE = 1e-3  # a frame whose channels are both at most this is silent
MPV = ["mpv", "--no-config", "--no-video", "--ao=pulse", "--no-terminal"]
COMMANDS = ["pause", "play", "seek", "volume"]

# Sample counts per mode; quick mode plays 1 s cuts of the sweeps for CPU and RSS (see quick_cuts).
FULL = {"first_audio": 15, "rounds": 200, "honesty": 20, "cut": None, "collection": 5, "idle": 30,
        "battery_rounds": 3, "battery_cut": None, "battery_window": (10, 25), "quiet": 60,
        "replaygain_rounds": 5, "replaygain_window": (10, 25)}
QUICK = {"first_audio": 3, "rounds": 15, "honesty": 3, "cut": 1, "collection": 2, "idle": 10,
         "battery_rounds": 1, "battery_cut": 5, "battery_window": (3, 4.5), "quiet": 10,
         "replaygain_rounds": 1, "replaygain_window": (3, 4.5)}
GAP = 0.02  # seconds between acknowledged commands in the latency loops


def main():
    """Builds what is missing, measures the parts in turn, prints the table and updates the docs."""
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--quick", action="store_true", help="fewer samples and 1 s files for CPU and RSS")
    parser.add_argument("--update-doc", metavar="FILE", help="rewrite the audio-bench section of FILE")
    parser.add_argument("--update-summary", metavar="FILE",
                        help="rewrite the bench-summary section of FILE (README.md) with a few rows of the table")
    parser.add_argument("--swift", default=os.environ.get("SWIFT", "swift"), help="the swift driver to use")
    parser.add_argument("--jobs", default="1", help="build jobs (the machine has 2 cores and is shared)")
    parser.add_argument("--skip-build", action="store_true", help="use the binaries already built")
    options = parser.parse_args()
    check_sandbox()

    run([str(ROOT / "scripts" / "install-deps"), "mpv", "mpg123", "sox", "libsox-fmt-mp3", "ffmpeg", "mpv-mpris"])
    if not options.skip_build:
        step("building splay, ControlProbe, PulseFloorProbe and MPRISProbe (release)")
        # splay as `make release` builds it (ControlProbe with cross-module optimization too, so that the API
        # figures are of the same code).
        cmo = CROSS_MODULE
        static = splay_release_flags(ROOT)
        for package, product, extra in ((ROOT, "splay", static), (PACKAGE, "ControlProbe", cmo),
                                        (PACKAGE, "PulseFloorProbe", []), (PACKAGE, "MPRISProbe", [])):
            run([options.swift, "build", "-c", "release", "-j", options.jobs, "--package-path", str(package),
                 "--product", product] + extra)

    plan = QUICK if options.quick else FULL
    started = time.monotonic()
    with PrivateBus(), tempfile.TemporaryDirectory(prefix="splay-bench-") as directory:
        files = [MEDIA / "sweep-30s.flac", MEDIA / "sweep-30s.mp3"]
        if plan["cut"]:
            files = quick_cuts(files, plan["cut"], Path(directory))
        files.append(aac_copy(files[0], Path(directory)))
        monitor = Monitor()
        try:
            collection = measure_collection(
                plan["collection"], directory, MEDIA / "short-44k-stereo.flac",
                {"splay": [str(SPLAY), "play", "--json"], "mpv": MPV}, first_audio, monitor, high_water_mark,
                stop_process)
        finally:
            monitor.stop()
        results = {
            "collection": collection,
            "first_audio": measure_first_audio(plan["first_audio"]),
            "cost": measure_cost(files),
            "latency": measure_latency(plan["rounds"]),
            "mpris": measure_mpris(plan["rounds"], GAP, directory, {
                "splay": (SplayClient, SPLAY_BUS_NAME),
                "mpv": (lambda path: MpvClient(path, extra=[f"--script={MPV_MPRIS}"]), MPV_BUS_NAME),
            }),
            "idle": measure_idle(plan["idle"], directory, idle_players()),
            "battery": measure_battery(plan["battery_rounds"], plan["quiet"], directory,
                                       battery_players(battery_file(plan, directory)), plan["battery_window"],
                                       idle_players, measure_idle),
            "honesty": measure_honesty(plan["honesty"]),
            "replaygain": measure_replaygain(plan["replaygain_rounds"], battery_file(plan, directory), directory,
                                             [str(SPLAY), "play", "--json"], plan["replaygain_window"]),
        }
    elapsed = time.monotonic() - started

    table = render(results, plan, options)
    REPORT.write_text(table)
    RAW.write_text(json.dumps(results, indent=1))
    print()
    print(table)
    step(f"measured in {elapsed:.0f} s after the build; table also in {REPORT.relative_to(ROOT)}, samples in "
         f"{RAW.relative_to(ROOT)}")
    if options.update_doc:
        update_section(Path(options.update_doc), table, START_MARKER, END_MARKER, "audio-bench")
    if options.update_summary:
        update_section(Path(options.update_summary), summary(table), SUMMARY_START, SUMMARY_END, "bench-summary")


# The rows README shows, by the start of their first cell: what a user compares players by.
SUMMARY_ROWS = (
    "First audio at the monitor, FLAC", "First audio of a 200,000-file", "Acknowledgement of pause",
    "Acknowledgement of seek", "Acknowledgement of volume", "Seek: first content after the seek",
    "Pause + resume: audio lost", "Peak RSS playing `sweep-30s.flac`", "Wake-ups per second while it plays, 10–25 s",
    "Wake-ups of `splay serve` (MPRIS on) paused, plain",
)


def summary(table):
    """A few rows of the audio table (`SUMMARY_ROWS`), with its date, for README: measurement, splay, peers."""
    lines = table.splitlines()
    when = lines[0].split(" on ")[0].removeprefix("Audio path, measured ")
    rows = []
    for line in lines:
        cells = [cell.strip() for cell in line.strip().strip("|").split(" | ")]
        if len(cells) >= 3 and cells[0].startswith(SUMMARY_ROWS):
            rows.append("| " + " | ".join(cells[:3]) + " |")
    return "\n".join([f"From `make bench` of {when} (every row, how each is measured and the targets: "
                      "[docs/performance.md](docs/performance.md)):", "",
                      "| Measurement | splay | Peers (same run) |", "|---|---|---|", *rows])


def check_sandbox():
    """Ends the run unless PULSE_SERVER is the private server of scripts/pulse-sandbox, which is running."""
    sandbox = subprocess.run([str(ROOT / "scripts" / "pulse-sandbox"), "env"], capture_output=True, text=True)
    expected = sandbox.stdout.strip().removeprefix("PULSE_SERVER=")
    if sandbox.returncode != 0 or os.environ.get("PULSE_SERVER") != expected:
        sys.exit("run-audio.py measures against the private server only: run it under scripts/with-pulse-sandbox")


# MARK: - The monitor


class Monitor:
    """Records the null sink's monitor with parec and knows when each recorded frame reached it."""

    def __init__(self):
        self.data = bytearray()
        self.chunks = []  # (frames recorded after this chunk, arrival in CLOCK_MONOTONIC ns)
        self.lock = threading.Lock()
        self.process = subprocess.Popen(
            ["parec", "--device=splay_null.monitor", "--format=float32le", f"--rate={RATE}", "--channels=2",
             "--latency-msec=5", "--raw"], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
        self.reader = threading.Thread(target=self._read, daemon=True)
        self.reader.start()
        deadline = time.monotonic() + 5
        while self.frames() < RATE // 5:  # flowing: 200 ms recorded
            if time.monotonic() > deadline:
                sys.exit("parec recorded nothing from splay_null.monitor in 5 s")
            time.sleep(0.01)

    def _read(self):
        """Appends what parec writes, stamping each chunk on arrival."""
        descriptor = self.process.stdout.fileno()
        while chunk := os.read(descriptor, 1 << 16):
            arrival = time.monotonic_ns()
            with self.lock:
                self.data += chunk
                self.chunks.append((len(self.data) // 8, arrival))

    def stop(self):
        """Ends parec and the reader; what was recorded stays readable."""
        self.process.terminate()
        self.process.wait()
        self.reader.join()

    def frames(self):
        """Frames recorded so far."""
        with self.lock:
            return len(self.data) // 8

    def samples(self, start, end):
        """Frames [start, end) as a (frames, 2) float array."""
        with self.lock:
            raw = bytes(self.data[start * 8:end * 8])
        return numpy.frombuffer(raw, dtype="<f4").reshape(-1, 2)

    def time_of(self, frame):
        """When `frame` reached the recorder (CLOCK_MONOTONIC ns): the arrival of the chunk that holds it."""
        with self.lock:
            index = bisect.bisect_right(self.chunks, frame, key=lambda chunk: chunk[0])
            return self.chunks[index][1]

    def frame_at(self, nanoseconds):
        """The first frame that reached the recorder after `nanoseconds`: what had arrived by then is before it."""
        with self.lock:
            index = bisect.bisect_left(self.chunks, nanoseconds, key=lambda chunk: chunk[1])
            return self.chunks[index - 1][0] if index > 0 else 0

    def first_sound(self, start, timeout):
        """The first non-silent frame at or after `start`, waiting up to `timeout` seconds; None if none."""
        deadline = time.monotonic() + timeout
        while True:
            end = self.frames()
            loud = numpy.flatnonzero(numpy.abs(self.samples(start, end)).max(axis=1) > SILENCE)
            if loud.size:
                return start + int(loud[0])
            if time.monotonic() > deadline:
                return None
            start = end
            time.sleep(0.002)

    def wait_for_silence(self, seconds=0.1, timeout=5):
        """Waits until the last `seconds` of the recording are silent."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            end = self.frames()
            tail = self.samples(max(0, end - int(seconds * RATE)), end)
            if numpy.abs(tail).max(initial=0) <= SILENCE:
                return
            time.sleep(0.05)
        sys.exit("the sink did not fall silent; is another client playing to the private server?")


def stop_process(process):
    """Ends a player that is still running (SIGTERM, then SIGKILL) and reaps it."""
    if process.poll() is None:
        process.send_signal(signal.SIGTERM)
        try:
            process.wait(timeout=3)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


# MARK: - 1. First audio


def players(file):
    """The contenders that play `file` (a Path) from the command line: splay, then its peers for the format."""
    path = str(file)
    contenders = {"splay": [str(SPLAY), "play", "--json", path]}
    if file.suffix == ".flac":
        contenders["paplay"] = ["paplay", path]
    elif file.suffix == ".mp3":
        contenders["mpg123"] = ["mpg123", "-q", "-o", "pulse", path]
    contenders["mpv"] = MPV + [path]
    return contenders


def measure_first_audio(rounds):
    """Spawns each player `rounds` times round-robin; returns {file: {name: [ms from spawn to first audio]}}."""
    step(f"first audio: {rounds} spawns per player, round-robin")
    monitor = Monitor()
    figures = {}
    try:
        for file in ("sweep-30s.flac", "sweep-30s.mp3"):
            contenders = players(MEDIA / file)
            figures[file] = {name: [] for name in contenders}
            for _ in range(rounds):
                for name, command in contenders.items():
                    figures[file][name].append(first_audio(monitor, command))
    finally:
        monitor.stop()
    return figures


def first_audio(monitor, command):
    """Milliseconds from spawning `command` to its first non-silent frame at the monitor (None: no audio in 5 s)."""
    monitor.wait_for_silence()
    start = monitor.frames()
    spawned = time.monotonic_ns()
    process = subprocess.Popen(command, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        frame = monitor.first_sound(start, timeout=5)
    finally:
        stop_process(process)
    if frame is None:
        return None
    return (monitor.time_of(frame) - spawned) / 1e6


# MARK: - 2. CPU time and peak RSS


def quick_cuts(files, seconds, directory):
    """The first `seconds` of each file, cut by sox into `directory` (an MP3 is re-encoded by sox's LAME)."""
    cuts = []
    for file in files:
        cut = directory / f"{file.stem.replace('30s', f'{seconds}s')}{file.suffix}"
        run(["sox", str(file), str(cut), "trim", "0", str(seconds)])
        cuts.append(cut)
    return cuts


def aac_copy(flac, directory):
    """`flac` encoded by ffmpeg's AAC encoder into an M4A in `directory` (192 kb/s, as a shop sells it)."""
    m4a = directory / f"{flac.stem}.m4a"
    run(["ffmpeg", "-nostdin", "-hide_banner", "-loglevel", "error", "-y", "-i", str(flac), "-c:a", "aac", "-b:a",
         "192k", str(m4a)])
    return m4a


def measure_cost(files):
    """Plays each file to the end with each player, one at a time.

    Returns {file name: {player: (cpu seconds, peak RSS MB, wall seconds, wake-ups)}}."""
    figures = {}
    for file in files:
        figures[file.name] = {}
        for name, command in players(file).items():
            step(f"playing {file.name} to the end with {name}")
            figures[file.name][name] = play_to_end(command)
    return figures


def play_to_end(command):
    """Runs `command` to its end; returns (user + sys seconds, peak RSS in MB, wall seconds, wake-ups).

    CPU time and wake-ups (context switches, voluntary and not, of all its threads) come from os.wait4's rusage. Peak RSS is the process's VmHWM, read every 10 ms while it runs:
    wait4's ru_maxrss cannot be used, because a child that Python spawns starts from Python's own high-water
    mark (measured here: /bin/true reports Python's size).
    """
    began = time.monotonic()
    process = subprocess.Popen(command, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    peak = 0
    while True:
        pid, status, usage = os.wait4(process.pid, os.WNOHANG)
        if pid:
            break
        peak = max(peak, high_water_mark(process.pid))
        time.sleep(0.01)
    process.returncode = os.waitstatus_to_exitcode(status)
    if process.returncode != 0:
        sys.exit(f"{command[0]} failed ({process.returncode}) playing {command[-1]}")
    wakeups = usage.ru_nvcsw + usage.ru_nivcsw
    return usage.ru_utime + usage.ru_stime, peak / 1024, time.monotonic() - began, wakeups


def high_water_mark(pid):
    """The peak resident set of a running process in KiB (VmHWM), or 0 once it has exited."""
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmHWM:"):
                return int(line.split()[1])
    except (FileNotFoundError, ProcessLookupError):
        pass
    return 0


# MARK: - 3. Acknowledgement latency


def seek_positions(rounds):
    """Where the latency loops seek to: spread over the 30 s sweep, the same list for every contender."""
    chooser = random.Random(8)
    return [round(chooser.uniform(1, 25), 3) for _ in range(rounds)]


def measure_latency(rounds):
    """Times `rounds` rounds of pause, play, seek, volume per contender; returns {name: {command: [ms]}}."""
    positions = seek_positions(rounds)
    step(f"acknowledgement latency: {rounds} rounds of pause, resume, seek and volume per contender")
    figures = {}
    with tempfile.TemporaryDirectory(prefix="splay-bench-") as directory:
        with SplayClient(Path(directory) / "splay.sock") as client:
            figures["splay socket"] = command_loop(client, positions)
        with MpvClient(Path(directory) / "mpv.sock") as client:
            figures["mpv IPC"] = command_loop(client, positions)
    figures["splay API"] = probe_loop(positions)
    figures[SERVER_ALONE] = floor_loop(rounds)
    return figures


def command_loop(client, positions):
    """Runs the rounds through a client; returns {command: [ms from request to reply]}, with "noop" for the
    client's request that does nothing (the socket's own round trip)."""
    times = {name: [] for name in COMMANDS + ["noop"]}
    for index, position in enumerate(positions):
        volume = 40 + 20 * (index % 2)
        for name, argument in (("noop", None), ("pause", None), ("play", None), ("seek", position),
                               ("volume", volume)):
            sent, replied = client.noop() if name == "noop" else client.send(name, argument)
            times[name].append((replied - sent) / 1e6)
            time.sleep(GAP)
    return times


SERVER_ALONE = "server alone"
FLOOR_OPERATIONS = ["pause", "pause_timing", "play", "volume"]


def floor_loop(rounds):
    """The server alone: PulseFloorProbe's bare libpulse client times cork (and the timing update after it),
    uncork and sink-input volume, `rounds` times each; returns {operation: [ms]}."""
    return run_probe([str(FLOOR), str(rounds), str(int(GAP * 1000))], FLOOR_OPERATIONS)


def probe_loop(positions):
    """Runs the same rounds in ControlProbe, splay's controller API in-process; returns {command: [ms]}."""
    command = [str(PROBE), str(MEDIA / "sweep-30s.flac"), str(int(GAP * 1000))] + [str(p) for p in positions]
    return run_probe(command, COMMANDS)


def run_probe(command, names):
    """Runs a probe that prints one JSON object of nanosecond lists and a failure count; returns {name: [ms]}
    for `names`. A probe that fails, or counts a failure, ends the run."""
    result = subprocess.run(command, capture_output=True, text=True)
    report = json.loads(result.stdout or "{}")
    if result.returncode != 0 or report.get("failures"):
        sys.exit(f"{Path(command[0]).name} failed ({result.returncode}): {result.stdout.strip()[:2000]} "
                 f"{result.stderr.strip()[-2000:]}")
    return {name: [ns / 1e6 for ns in report[name]] for name in names}


class LineClient:
    """A JSON-lines client on a Unix socket: one request, then lines until its reply."""

    def __init__(self, path, process):
        self.process = process
        deadline = time.monotonic() + 10
        while True:
            self.socket = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            try:
                self.socket.connect(str(path))
                break
            except (FileNotFoundError, ConnectionRefusedError):
                self.socket.close()
            if time.monotonic() > deadline or process.poll() is not None:
                stop_process(process)
                sys.exit(f"{process.args[0]} did not listen on {path}")
            time.sleep(0.01)
        self.reader = self.socket.makefile("rb")
        self.next_id = 1

    def __enter__(self):
        return self

    def __exit__(self, *_):
        self.socket.close()
        stop_process(self.process)

    def request(self, message, is_reply):
        """Sends `message(id)` with a fresh id; returns (sent ns, replied ns, reply) for the first line that
        `is_reply(line, id)` accepts."""
        message_id = self.next_id
        self.next_id += 1
        line = json.dumps(message(message_id)).encode() + b"\n"
        sent = time.monotonic_ns()
        self.socket.sendall(line)
        while True:
            raw = self.reader.readline()
            replied = time.monotonic_ns()
            if not raw:
                sys.exit(f"{self.process.args[0]} closed its socket")
            reply = json.loads(raw)
            if is_reply(reply, message_id):
                return sent, replied, reply


class SplayClient(LineClient):
    """`splay serve` playing the 30 s FLAC, spoken to in docs/protocol.md's JSON lines."""

    def __init__(self, path, file="sweep-30s.flac"):
        process = subprocess.Popen([str(SPLAY), "serve", "--no-resume", "--socket", str(path)], stdin=subprocess.DEVNULL,
                                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        super().__init__(path, process)
        self.send("load", [str(MEDIA / file)])
        self.send("play", None)

    def send(self, name, argument):
        """Sends one command; returns (sent ns, replied ns). A failure ends the run."""
        args = [] if argument is None else argument if isinstance(argument, list) else [argument]
        sent, replied, reply = self.request(lambda i: {"id": i, "command": name, "args": args},
                                            lambda reply, i: reply.get("id") == i)
        if not reply.get("ok"):
            sys.exit(f"splay serve refused {name}: {reply}")
        return sent, replied

    def noop(self):
        """`unsubscribe` while not subscribed: answered from the published state, nothing asked of the player."""
        return self.send("unsubscribe", None)


class MpvClient(LineClient):
    """mpv playing the 30 s FLAC in a loop, spoken to through --input-ipc-server (its reply to seek means queued);
    `extra` options go before the file (the MPRIS rows load mpv-mpris with them)."""

    def __init__(self, path, file="sweep-30s.flac", extra=()):
        process = subprocess.Popen(MPV + ["--loop-file=inf", f"--input-ipc-server={path}", *extra, str(MEDIA / file)],
                                   stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        super().__init__(path, process)
        # Wait until the file is loaded and playing, as splay's `play` reply confirms.
        while self.send_raw(["get_property", "time-pos"]).get("data") is None:
            time.sleep(0.02)

    def send_raw(self, command):
        """Sends one mpv command; returns its reply."""
        return self.request(lambda i: {"command": command, "request_id": i},
                            lambda reply, i: reply.get("request_id") == i)[2]

    def send(self, name, argument):
        """Sends the mpv equivalent of a splay command; returns (sent ns, replied ns). A failure ends the run."""
        command = {
            "pause": ["set_property", "pause", True],
            "play": ["set_property", "pause", False],
            "seek": ["seek", argument, "absolute+exact"],
            "volume": ["set_property", "volume", argument],
        }[name]
        sent, replied, reply = self.request(lambda i: {"command": command, "request_id": i},
                                            lambda reply, i: reply.get("request_id") == i)
        if reply.get("error") != "success":
            sys.exit(f"mpv refused {command}: {reply}")
        return sent, replied

    def noop(self):
        """`client_name`: answered by the IPC code with nothing asked of the player core's state."""
        sent, replied, reply = self.request(lambda i: {"command": ["client_name"], "request_id": i},
                                            lambda reply, i: reply.get("request_id") == i)
        if reply.get("error") != "success":
            sys.exit(f"mpv refused client_name: {reply}")
        return sent, replied


# MARK: - 4. Honesty at the monitor


def measure_honesty(trials):
    """Pauses, resumes and seeks `trials` times per contender while recording; returns {name: {measure: [ms]}}."""
    step(f"honesty at the monitor: {trials} pause/resume/seek trials for splay (socket) and mpv (IPC)")
    reference = Reference(MEDIA / "sweep-30s.flac")
    positions = seek_positions(trials)
    figures = {}
    with tempfile.TemporaryDirectory(prefix="splay-bench-") as directory:
        for name, client_type in (("splay socket", SplayClient), ("mpv IPC", MpvClient)):
            monitor = Monitor()
            try:
                with client_type(Path(directory) / f"{name.split()[0]}.sock") as client:
                    events = [honesty_trial(client, position) for position in positions]
                    time.sleep(0.1)
                figures[name] = analyse_trials(monitor, reference, events, positions)
            finally:
                monitor.stop()
    return figures


def honesty_trial(client, position):
    """Plays, pauses, resumes and seeks to `position`, leaving time around each; returns {command: (sent, replied)}."""
    events = {}
    time.sleep(0.4)
    for name, argument, wait in (("pause", None, 0.3), ("play", None, 0.4), ("seek", position, 0.5)):
        events[name] = client.send(name, argument)
        time.sleep(wait)
    return events


# The content analysis: a recorded frame is matched to the reference by cross-correlation (the sweep's every
# instant has its own frequency), then followed sample by sample until it stops matching.
WINDOW = 2048  # frames correlated to place a piece of recording in the file
# A recorded sample matches when within this of the reference scaled by the fitted gain. The FLAC reaches the
# sink bit for bit (16-bit samples as float, unity gain), so matching content is within 1e-6; at 0.01, old content
# near a crest could pass for new content over several frames and move a boundary into the previous chunk.
TOLERANCE = 0.001


class Reference:
    """The left channel of a file decoded by sox to 44.1 kHz float (the content that should be heard), with what
    placing a recorded window in it needs computed once."""

    def __init__(self, path):
        raw = run(["sox", str(path), "-t", "f32", "-r", str(RATE), "-c", "2", "-"], capture_output=True).stdout
        self.samples = numpy.frombuffer(raw, dtype="<f4").reshape(-1, 2)[:, 0].astype(numpy.float64)
        self.size = 1 << (len(self.samples) + WINDOW).bit_length()
        self.spectrum = numpy.fft.rfft(self.samples, self.size)
        energy = numpy.cumsum(numpy.concatenate(([0.0], self.samples**2)))
        self.norms = numpy.sqrt(numpy.maximum(energy[WINDOW:] - energy[:-WINDOW], 1e-12))

    def locate(self, window):
        """(start, gain, residual): the frame of the file where `window` (WINDOW mono frames) fits best, the
        gain of the fit and its residual relative to the window's energy."""
        correlation = numpy.fft.irfft(self.spectrum * numpy.conj(numpy.fft.rfft(window, self.size)), self.size)
        coarse = int(numpy.argmax(correlation[: len(self.norms)] / self.norms))
        # Refine exactly around the FFT's answer: the best least-squares fit within 64 frames.
        best = None
        for start in range(max(0, coarse - 64), min(len(self.samples) - WINDOW, coarse + 65)):
            piece = self.samples[start:start + WINDOW]
            gain = float(numpy.dot(window, piece) / max(numpy.dot(piece, piece), 1e-12))
            residual = float(numpy.linalg.norm(window - gain * piece) / max(numpy.linalg.norm(window), 1e-12))
            if best is None or residual < best[2]:
                best = (start, gain, residual)
        return best


def content_span(monitor, reference, probe, reach=RATE):
    """Follows the content around recorded frame `probe`: (first, last) recorded frames that continue it and
    the reference frame of `first`; None when the probe does not match the file."""
    window = monitor.samples(probe, probe + WINDOW)[:, 0].astype(numpy.float64)
    start, gain, residual = reference.locate(window)
    if residual > 0.05:
        return None
    low, high = max(0, probe - reach), probe + WINDOW + reach
    recorded = monitor.samples(low, high)[:, 0].astype(numpy.float64)
    offset = start - probe  # reference frame = recorded frame + offset
    frames = numpy.arange(low, low + len(recorded))
    content = reference.samples
    inside = (frames + offset >= 0) & (frames + offset < len(content))
    expected = numpy.where(inside, content[numpy.clip(frames + offset, 0, len(content) - 1)] * gain, numpy.inf)
    miss = numpy.abs(recorded - expected) > TOLERANCE
    # Any mismatch ends a span: matching content is exact, while other content can equal it at a single frame
    # (a crossing), so a rule that tolerated one stray frame would let such a coincidence extend the span.
    before = numpy.flatnonzero(miss[: probe - low])
    after = numpy.flatnonzero(miss[probe - low + WINDOW:])
    first = low + (int(before[-1]) + 1 if before.size else 0)
    last = probe + WINDOW - 1 + int(after[0]) if after.size else low + len(recorded) - 1
    return first, last, first + offset


def silence_start(monitor, start, run=441):
    """The first frame at or after `start` that begins `run` silent frames (10 ms); None if there is none."""
    quiet = numpy.abs(monitor.samples(start, monitor.frames())).max(axis=1) <= SILENCE
    count = 0
    for index, silent in enumerate(quiet):
        count = count + 1 if silent else 0
        if count == run:
            return start + index - run + 1
    return None


def analyse_trials(monitor, reference, events, positions):
    """Turns the recording of the trials into {measure: [values]} (ms); a trial that cannot be read counts as
    a failure under "unreadable"."""
    figures = {"pause_to_silence": [], "continuity": [], "seek_error": [], "seek_audio": [], "seek_reply": [],
               "unreadable": 0}
    for trial, position in zip(events, positions):
        try:
            figures_of_trial = analyse_trial(monitor, reference, trial, position)
        except (ValueError, IndexError):
            figures_of_trial = None
        if figures_of_trial is None:
            figures["unreadable"] += 1
            continue
        for key, value in figures_of_trial.items():
            figures[key].append(value)
    return figures


def analyse_trial(monitor, reference, trial, position):
    """One trial's figures (ms): reply to silence, audio lost (+) or repeated (−) across pause and resume, seek
    error (+ late in the file), request to post-seek audio, request to seek reply."""
    ms = RATE / 1000
    pause_sent, pause_replied = trial["pause"]
    silent = silence_start(monitor, max(0, monitor.frame_at(pause_sent) - RATE // 20))
    if silent is None:
        return None
    before = content_span(monitor, reference, silent - WINDOW - 64)
    resumed = monitor.first_sound(silent, timeout=0)
    after = content_span(monitor, reference, resumed + 2205) if resumed is not None else None
    seek_sent, seek_replied = trial["seek"]
    seeked = content_span(monitor, reference, monitor.frame_at(seek_sent + 300_000_000))
    if before is None or after is None or seeked is None:
        return None
    last_played = before[2] + (before[1] - before[0])
    return {
        "pause_to_silence": (monitor.time_of(silent) - pause_replied) / 1e6,
        "continuity": (after[2] - (last_played + 1)) / ms,
        "seek_error": (seeked[2] - round(position * RATE)) / ms,
        "seek_audio": (monitor.time_of(seeked[0]) - seek_sent) / 1e6,
        "seek_reply": (seek_replied - seek_sent) / 1e6,
    }


# MARK: - 5. Idle players on the bus (the PlayPause rounds are in measure_mpris)


def idle_players():
    """The contenders of the idle rows, for bench_mpris.measure_idle: name → start(socket path, probe), which
    returns (process, clean-up) once the player is on the bus (or, with `--no-mpris`, serving its socket). They
    start in this order, so the second splay and the second mpv on the bus take their `.instance<pid>` names."""

    def serve(*options, bus_name=None):
        def start(path, probe):
            process = subprocess.Popen([str(SPLAY), "serve", "--no-resume", *options, "--socket", str(path)],
                                       stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            if bus_name:
                probe.wait_for(bus_name, process)
            else:
                client = LineClient(path, process)  # serving: it accepted a connection, which closes at once
                client.reader.close()
                client.socket.close()
            return process, lambda: stop_process(process)
        return start

    def paused(client_type, bus_name):
        def start(path, probe):
            client = client_type(path)
            probe.wait_for(bus_name(client.process.pid), client.process)
            client.send("pause", None)
            client.reader.close()
            client.socket.close()
            return client.process, lambda: client.__exit__()
        return start

    def mpv_idle(path, probe):
        process = subprocess.Popen(MPV + ["--idle=yes", f"--script={MPV_MPRIS}"], stdin=subprocess.DEVNULL,
                                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        probe.wait_for(MPV_BUS_NAME, process)
        return process, lambda: stop_process(process)

    return {
        "splay idle": serve(bus_name=SPLAY_BUS_NAME),
        "splay paused": paused(SplayClient, lambda pid: f"{SPLAY_BUS_NAME}.instance{pid}"),
        "splay idle, no MPRIS": serve("--no-mpris"),
        "mpv idle": mpv_idle,
        "mpv paused": paused(lambda path: MpvClient(path, extra=[f"--script={MPV_MPRIS}"]),
                             lambda pid: f"{MPV_BUS_NAME}.instance{pid}"),
    }


# MARK: - 6. Battery on the servers users run (the measuring is in bench_battery)


def battery_file(plan, directory):
    """The FLAC the battery rows play: the 30 s sweep, or in quick mode a cut of it."""
    flac = MEDIA / "sweep-30s.flac"
    return quick_cuts([flac], plan["battery_cut"], Path(directory))[0] if plan["battery_cut"] else flac


def battery_name(plan):
    """The name of the FLAC the battery and ReplayGain rows play."""
    return f"sweep-{plan['battery_cut']}s.flac" if plan["battery_cut"] else "sweep-30s.flac"


def battery_players(file):
    """splay as users run it (MPRIS on, on the private bus), paplay and mpv, each playing `file` to the end."""
    return {"splay": [str(SPLAY), "play", "--json", str(file)], "paplay": ["paplay", str(file)], "mpv": MPV + [str(file)]}


# MARK: - The table


def percentile(values, fraction):
    """The `fraction` percentile of `values` (nearest rank), or None when there are none."""
    values = sorted(v for v in values if v is not None)
    if not values:
        return None
    return values[min(len(values) - 1, max(0, round(fraction * len(values) + 0.5) - 1))]


def ms(value, digits=1):
    """A duration in ms for the table."""
    return "—" if value is None else f"{round(value, digits) + 0.0:.{digits}f} ms"  # + 0.0: no "-0.0"


def verdict(met, why):
    """The Met? cell: met, or a bold miss with the reason."""
    return "met" if met else f"**miss**: {why}"


def first_audio_rows(figures):
    """First audio per format: splay's median beside its peers'; the target (≤ paplay's) is FLAC's."""
    rows = []
    for file, label in (("sweep-30s.flac", "FLAC"), ("sweep-30s.mp3", "MP3")):
        medians = {name: percentile(values, 0.5) for name, values in figures[file].items()}
        missing = {name: sum(v is None for v in values) for name, values in figures[file].items()}
        peers = "; ".join(f"`{name}` {ms(value)}" + (f" ({missing[name]} without audio)" if missing[name] else "")
                          for name, value in medians.items() if name != "splay")
        splay = medians["splay"]
        if label == "FLAC":
            paplay = medians["paplay"]
            met = splay is not None and paplay is not None and splay <= paplay
            cells = ["≤ paplay's", verdict(met, f"{ms(splay)} > paplay's {ms(paplay)}")]
        else:
            cells = ["— (context)", "—"]
        rows.append([f"First audio at the monitor, {label} (median from spawn)", ms(splay), peers, *cells])
    return rows


def cost_rows(figures):
    """CPU time and peak RSS to play each file to the end, splay beside its peers."""
    rows = []
    for file in figures:
        label = f"`{file}`"
        results = figures[file]
        splay_cpu, splay_rss, _, _ = results["splay"]
        peers_cpu = "; ".join(f"`{n}` {cpu:.3f} s" for n, (cpu, _, _, _) in results.items() if n != "splay")
        peers_rss = "; ".join(f"`{n}` {rss:.1f} MB" for n, (_, rss, _, _) in results.items() if n != "splay")
        rate = {n: wakeups / wall for n, (_, _, wall, wakeups) in results.items()}
        peers_rate = "; ".join(f"`{n}` {rate[n]:.1f}" for n in results if n != "splay")
        if "paplay" in results:
            paplay = results["paplay"][0]
            cpu_cells = ["≤ paplay's", verdict(splay_cpu <= paplay, f"{splay_cpu:.3f} s > paplay's {paplay:.3f} s")]
        elif file.endswith(".m4a"):
            mpv = results["mpv"][0]
            cpu_cells = ["≤ mpv's", verdict(splay_cpu <= mpv, f"{splay_cpu:.3f} s > mpv's {mpv:.3f} s")]
        else:
            cpu_cells = ["— (context)", "—"]
        rows.append([f"CPU (user + sys) to play {label} to the end", f"{splay_cpu:.3f} s", peers_cpu, *cpu_cells])
        rows.append([f"Peak RSS playing {label}", f"{splay_rss:.1f} MB", peers_rss, "≤ 30 MB",
                     verdict(splay_rss <= 30, f"{splay_rss:.1f} MB > 30 MB")])
        if "paplay" in results:
            wake_cells = ["≤ paplay's", verdict(rate["splay"] <= rate["paplay"],
                                                f"{rate['splay']:.1f}/s > paplay's {rate['paplay']:.1f}/s")]
        else:
            wake_cells = ["— (context)", "—"]
        rows.append([f"Wake-ups per second playing {label}", f"{rate['splay']:.1f}", peers_rate, *wake_cells])
    return rows


def latency_rows(figures, honesty):
    """Acknowledgement latency per command: splay (socket, API) beside mpv's IPC round trip, with the server
    alone (what any client waits for the operations splay's reply stands for) and each socket's round trip for
    a request that does nothing, the two parts no player can take out of its reply."""
    rows = []
    mpv_seek_audio = percentile(honesty["mpv IPC"]["seek_audio"], 0.5)
    players = {name: values for name, values in figures.items() if name != SERVER_ALONE}
    server = {name: percentile(values, 0.5) for name, values in figures[SERVER_ALONE].items()}
    # What splay's reply to each command waits for at the server, and what mpv's waits for (ao_pulse waits
    # for the cork's answer; its volume is its own gain, no server).
    waits = {"pause": (f"cork + timing update {ms(server['pause_timing'], 2)} (mpv's pause: cork "
                       f"{ms(server['pause'], 2)})", server["pause_timing"]),
             "play": (f"uncork {ms(server['play'], 2)} (mpv's too)", server["play"]),
             "volume": (f"sink-input volume {ms(server['volume'], 2)} (mpv's volume: none)", server["volume"])}
    noops = {name: percentile(players[name]["noop"], 0.5) for name in ("splay socket", "mpv IPC")}
    # The cheapest socket round trip of this run: what any player's reply adds to the server's part at least.
    noop_name, noop = min(noops.items(), key=lambda pair: pair[1])
    for command, label in (("pause", "pause"), ("play", "resume"), ("seek", "seek"), ("volume", "volume")):
        summary = {name: (percentile(values[command], 0.5), percentile(values[command], 0.99))
                   for name, values in players.items()}
        splay = "; ".join(f"{name.split()[1]} {ms(p50, 2)} / {ms(p99, 2)}"
                          for name, (p50, p99) in summary.items() if name.startswith("splay"))
        mpv_p50, mpv_p99 = summary["mpv IPC"]
        worst_p50, worst_p99 = (max(summary[n][i] for n in summary if n.startswith("splay")) for i in (0, 1))
        if command == "seek":
            peer = (f"mpv IPC: reply (queued) {ms(mpv_p50, 2)} / {ms(mpv_p99, 2)}; post-seek audio at the monitor "
                    f"{ms(mpv_seek_audio)} (median)")
            target = "p50 < mpv's post-seek audio; p99 ≤ 10 ms"
            bar, bar_name = mpv_seek_audio, "mpv's post-seek audio"
        else:
            peer = f"mpv IPC: {ms(mpv_p50, 2)} / {ms(mpv_p99, 2)}; the server alone, p50: {waits[command][0]}"
            target = "p50 ≤ mpv's; p99 ≤ 10 ms"
            bar, bar_name = mpv_p50, "mpv's p50"
        misses = []
        if bar is None or worst_p50 > bar or (command == "seek" and worst_p50 == bar):  # seek: strictly before
            why = f"p50 {worst_p50:.2f} ms > {bar_name} {ms(bar, 2)}"
            if command != "seek" and noop is not None and bar is not None and noop + waits[command][1] > bar:
                # Even a player that cost nothing would reply after the server's part and the socket's own.
                why += (f" (cannot be met: the server alone {ms(waits[command][1], 2)} + the cheaper socket "
                        f"doing nothing, {noop_name.split()[0]}'s {ms(noop, 2)}, already exceed it)")
            misses.append(why)
        if worst_p99 > 10:
            misses.append(f"p99 {worst_p99:.2f} ms > 10 ms")
        rows.append([f"Acknowledgement of {label}, p50 / p99", splay, peer, target,
                     verdict(not misses, "; ".join(misses))])
    rows.append(["Socket round trip of a request that does nothing, p50 (context)",
                 f"socket {ms(noops['splay socket'], 2)} (`unsubscribe`)",
                 f"mpv IPC: {ms(noops['mpv IPC'], 2)} (`client_name`)", "—", "—"])
    return rows


def honesty_rows(honesty):
    """What reached the monitor after the replies: splay (socket) beside mpv (IPC)."""
    splay, mpv = honesty["splay socket"], honesty["mpv IPC"]

    def cell(figures, key):
        values = figures[key]
        worst = max(values, key=abs) if values else None
        return f"{ms(percentile(values, 0.5))} (worst {ms(worst)})"

    rows = []
    silence, worst_silence = percentile(splay["pause_to_silence"], 0.5), max(splay["pause_to_silence"], default=None)
    rows.append(["Pause: reply → silence at the monitor, median (worst)", cell(splay, "pause_to_silence"),
                 f"mpv {cell(mpv, 'pause_to_silence')}", "≤ 50 ms (issue 5)",
                 verdict(worst_silence is not None and worst_silence <= 50, f"worst {ms(worst_silence)}")])
    for key, label in (("seek_error", "Seek: first content after the seek − requested position (FLAC)"),
                       ("continuity", "Pause + resume: audio lost (+) or repeated (−) (FLAC)")):
        worst = max(splay[key], key=abs, default=None)
        rows.append([f"{label}, median (worst)", cell(splay, key), f"mpv {cell(mpv, key)}", "≤ 1 ms",
                     verdict(worst is not None and abs(worst) <= 1, f"worst {ms(worst)}")])
    rows.append(["Seek: request → post-seek audio at the monitor, median (worst)", cell(splay, "seek_audio"),
                 f"mpv {cell(mpv, 'seek_audio')}", "—", "—"])
    return rows


def render(results, plan, options):
    """The Markdown section: a heading naming the run, the table and how each row was measured."""
    rows = (first_audio_rows(results["first_audio"])
            + collection_rows(results["collection"], percentile, ms, verdict) + cost_rows(results["cost"])
            + latency_rows(results["latency"], results["honesty"])
            + mpris_rows(results["mpris"], results["idle"], percentile, ms, verdict) + honesty_rows(results["honesty"])
            + battery_rows(results["battery"], percentile, verdict, battery_name(plan))
            + replaygain_rows(results["replaygain"], percentile, verdict, battery_name(plan)))
    header = ["Measurement", "splay", "Peers (same run)", "Target", "Met?"]
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    lines += ["| " + " | ".join(row) + " |" for row in rows]
    unreadable = {name: figures["unreadable"] for name, figures in results["honesty"].items() if figures["unreadable"]}

    when = datetime.datetime.now().strftime("%Y-%m-%d %H:%M")
    swift = subprocess.run([options.swift, "--version"], capture_output=True, text=True).stdout.splitlines()
    machine = f"{os.cpu_count()} cores, {platform.machine()}, {swift[0] if swift else 'swift'}"
    mode = "quick run (`make bench-quick`)" if options.quick else "full run (`make bench`)"
    heading = (f"Audio path, measured {when} on {machine}, load average {os.getloadavg()[0]:.1f}{cpu_pressure()}; "
               f"{mode}, against the private null-sink server of scripts/pulse-sandbox.")
    notes = NOTES.format(first=plan["first_audio"], rounds=plan["rounds"], trials=plan["honesty"],
                         gap=int(GAP * 1000), files=" and ".join(f"`{name}`" for name in results["cost"]))
    notes += MPRIS_NOTES.format(rounds=plan["rounds"], gap=int(GAP * 1000), settle=SETTLE)
    notes += BATTERY_NOTES.format(rounds=plan["battery_rounds"], settle=SETTLE,
                                  files=f"a {plan['battery_cut']} s cut of the FLAC sweep" if plan["battery_cut"]
                                  else "`sweep-30s.flac`")
    notes += REPLAYGAIN_NOTES.format(rounds=plan["replaygain_rounds"], file=f"`{battery_name(plan)}`",
                                     first=plan["replaygain_window"][0], last=plan["replaygain_window"][1])
    if plan["cut"]:
        notes += (f"\nQuick run: CPU and RSS come from {plan['cut']} s cuts of the sweeps (sox; the MP3 re-encoded), "
                  "so process start-up weighs far more than in a full run.\n")
    if unreadable:
        notes += "\nTrials whose recording could not be read (left out): " + ", ".join(
            f"{name} {count}" for name, count in unreadable.items()) + ".\n"
    return "\n".join([heading, "", *lines, "", notes])


def cpu_pressure():
    """", CPU pressure N % (PSI, 5 min)": the share of the last 5 minutes in which some task waited for a CPU
    (Linux PSI), the best single figure for how much the machine's other work could disturb the latencies; ""
    if unknown."""
    try:
        fields = Path("/proc/pressure/cpu").read_text().split("\n")[0].split()
        share = float(dict(field.split("=") for field in fields[1:])["avg300"])
        return f", CPU pressure {share:.0f} % (PSI, 5 min)"
    except (OSError, KeyError, ValueError, IndexError):
        return ""


NOTES = """\
Every figure comes from this run. Peers: `paplay` (FLAC), `mpg123 -o pulse` (MP3),
`mpv --no-config --no-video --ao=pulse` (both); splay is the release build (`make release`: the Swift
runtime and libstdc++ linked in, cross-module optimization).

- The monitor: `parec` records `splay_null.monitor` (float, 44.1 kHz, 5 ms latency) through a pipe that a
  thread stamps on arrival with CLOCK_MONOTONIC; a frame's time is the arrival of its chunk (chunks of about
  5 ms), so audio is never timed before it reached the recorder. A silent frame has both channels at most
  0.001. The recorder is flowing before any player starts. The sink's block rendering and the monitor's
  delivery are part of every figure, the same for every player.
- First audio: {first} spawns per player and format, round-robin, each after 100 ms of silence; from the clock
  read just before `Popen` (fork and exec included) to the first non-silent frame; the player is then ended.
  splay runs `splay play --json FILE`; the files are the 30 s sweeps.
- Folder tree: 2,000 folders of 100 hard links to copies of `short-44k-stereo.flac` (200,000 files, in the page
  cache); from spawn to the first non-silent frame of `splay play --json DIR` (which walks the tree, sorts it
  naturally and reads each file's first bytes, on every core, before the first track plays) and of mpv given the
  folder. Peak RSS: VmHWM read every 10 ms over each player's first 3 s on the tree. Status: the bytes of one
  `splay ctl status --json` while `splay serve --no-mpris` holds the whole tree in its queue.
- CPU and peak RSS: each player plays each file to the end once, one at a time ({files}; the M4A is the
  FLAC sweep encoded by ffmpeg's AAC encoder at 192 kb/s for this run, played by splay's AAC decoder, FAAD2). CPU is
  user + system time from `os.wait4`'s rusage; peak RSS is the player's `VmHWM` (/proc/PID/status), read every
  10 ms while it plays (`ru_maxrss` is useless here: a child spawned from Python starts with Python's own
  high-water mark). Wake-ups: the player's context switches (voluntary and involuntary, every thread, from the
  same rusage) over its wall time; this sandbox's 10 ms monitor reader makes the sink ask for audio more often
  than a sound card's or a plain null sink's, so compare within the row.
- Acknowledgement: {rounds} rounds of pause, resume, seek (to the same pseudo-random list of positions in
  the 30 s FLAC) and volume (40 and 60 alternately), one command at a time, {gap} ms after each reply.
  Socket: `splay serve --socket PATH`, request line written to reply line read, by this script. API:
  Benchmarks/Sources/ControlProbe, a `PlayerController` on `PulseOutput` in-process, call to the future's
  settlement. mpv: `--input-ipc-server`, `set_property pause`, `seek POS absolute+exact`,
  `set_property volume`, request to the reply with the same `request_id`. mpv's seek reply means "queued",
  and its `volume` is its own software gain: the server is not asked (nor would `ao-volume` wait for it:
  mpv's ao_pulse does not wait for volume operations), while splay's volume reply is the server's. Each
  round also times a request that does nothing (splay `unsubscribe`, mpv `client_name`): the socket's own
  round trip. The server alone: Benchmarks/Sources/PulseFloorProbe, a bare libpulse client (C, threaded
  mainloop, a stream made as PulseOutput makes its own, fed silence) that runs the same rounds of
  `pa_stream_cork` 1 and 0 and `pa_context_set_sink_input_volume`, call to callback; for the cork also to the
  first timing update after it, which splay's pause waits for (the position where the audio stopped). A reply
  that stands for the server's answer cannot come sooner than the server alone plus the socket's round trip.
- Honesty: {trials} trials per player of play 0.4 s, pause, wait 0.3 s, resume, wait 0.4 s, seek, wait 0.5 s,
  recorded. Content is placed in the file by cross-correlating 2,048 recorded frames with the decoded FLAC
  (a sweep: every instant has its own frequency), then followed sample by sample (within 0.001 after fitting
  the gain) to where it stops matching. Seek error: the file position of the first frame of the new content
  minus the requested position. Lost or repeated: the file position of the first frame after the resume minus
  the one after the last frame before the pause.
"""


if __name__ == "__main__":
    main()
