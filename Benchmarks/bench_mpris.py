"""MPRIS in the audio bench (issue 21): PlayPause over D-Bus beside the socket, and the CPU of idle players.

1. PlayPause's round trip over D-Bus, timed by MPRISProbe (Benchmarks/Sources/MPRISProbe: an sd-bus client with
   one open connection, no process started per call), on `splay serve` and on mpv with Debian's mpv-mpris
   plugin, in the same rounds as each player's own socket (splay's `pause`/`play`, mpv's IPC `set_property
   pause`). Both players run side by side, one playing at a time; the rounds alternate between them.
2. The CPU and the wake-ups of idle players on the bus over one window: `splay serve` with MPRIS on (nothing
   loaded; a track loaded and paused), the same with `--no-mpris`, and mpv with mpv-mpris (idle; paused).

Everything runs on a private session bus (PrivateBus), never the user's: run-audio.py starts one for the
whole run, so that no desktop's media keys or widgets reach the players under test.
"""

import os
import subprocess
import sys
import tempfile
import time
from contextlib import ExitStack
from pathlib import Path

from benchsupport import step

PACKAGE = Path(__file__).resolve().parent
PROBE = PACKAGE / ".build" / "release" / "MPRISProbe"
MPV_MPRIS = Path("/usr/lib/mpv-mpris/mpris.so")  # Debian's mpv-mpris package (0.7.1 in Debian 12)
SPLAY_BUS_NAME = "org.mpris.MediaPlayer2.splay"
MPV_BUS_NAME = "org.mpris.MediaPlayer2.mpv"
# Seconds between the idle players' set-up and the window: libdispatch's pool threads that set-up woke end after
# 5 s without work, and a thread that ends inside the window takes its context switches with it.
SETTLE = 6.0
LATENCY_KEYS = ["socket_noop", "dbus_ping", "socket_pause", "socket_resume", "dbus_pause", "dbus_resume"]


class PrivateBus:
    """A session bus of its own (`dbus-daemon --session` on a socket in a scratch folder), exported through
    DBUS_SESSION_BUS_ADDRESS to every process the run starts while it is entered; stopped on exit."""

    def __enter__(self):
        self.directory = tempfile.TemporaryDirectory(prefix="splay-bench-bus-")
        path = Path(self.directory.name) / "bus"
        self.address = f"unix:path={path}"
        self.process = subprocess.Popen(
            ["dbus-daemon", "--session", "--nofork", "--nopidfile", f"--address={self.address}"],
            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        deadline = time.monotonic() + 5
        while not path.exists():
            if time.monotonic() > deadline or self.process.poll() is not None:
                self.process.kill()
                sys.exit("dbus-daemon did not start a private session bus")
            time.sleep(0.01)
        self.previous = os.environ.get("DBUS_SESSION_BUS_ADDRESS")
        os.environ["DBUS_SESSION_BUS_ADDRESS"] = self.address
        step(f"private session bus at {self.address}")
        return self

    def __exit__(self, *_):
        if self.previous is None:
            os.environ.pop("DBUS_SESSION_BUS_ADDRESS", None)
        else:
            os.environ["DBUS_SESSION_BUS_ADDRESS"] = self.previous
        self.process.terminate()
        self.process.wait()
        self.directory.cleanup()


class BusProbe:
    """MPRISProbe, spoken to one request a line; it times each call itself (see its source)."""

    def __init__(self):
        self.process = subprocess.Popen([str(PROBE)], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True,
                                        bufsize=1)

    def __enter__(self):
        return self

    def __exit__(self, *_):
        self.process.stdin.close()
        self.process.wait()

    def request(self, line):
        """Sends one request; returns the reply's fields: ("ok", ns[, value]) or ("error", name, message)."""
        self.process.stdin.write(line + "\n")
        self.process.stdin.flush()
        reply = self.process.stdout.readline()
        if not reply:
            sys.exit(f"MPRISProbe ended ({self.process.wait()}) at: {line}")
        return reply.rstrip("\n").split(" ", 2)

    def timed(self, line):
        """Milliseconds of a request that must succeed; a failure ends the run."""
        reply = self.request(line)
        if reply[0] != "ok":
            sys.exit(f"D-Bus call failed: {line}: {' '.join(reply[1:])}")
        return int(reply[1]) / 1e6

    def call(self, destination, member):
        """Milliseconds of org.mpris.MediaPlayer2.Player.`member` on `destination`."""
        return self.timed(f"call {destination} {member}")

    def ping(self, destination):
        """Milliseconds of org.freedesktop.DBus.Peer.Ping, which the player's D-Bus library answers by itself."""
        return self.timed(f"ping {destination}")

    def status(self, destination):
        """The player's PlaybackStatus."""
        reply = self.request(f"status {destination}")
        if reply[0] != "ok":
            sys.exit(f"reading PlaybackStatus of {destination} failed: {' '.join(reply[1:])}")
        return reply[2]

    def wait_for(self, destination, process, timeout=10):
        """Waits until `destination` answers on the bus; ends the run if `process` (its owner) ends first."""
        deadline = time.monotonic() + timeout
        while self.request(f"ping {destination}")[0] != "ok":
            if time.monotonic() > deadline or process.poll() is not None:
                sys.exit(f"{process.args[0]} did not appear on the bus as {destination}")
            time.sleep(0.02)


# MARK: - 1. PlayPause over D-Bus beside the socket


def measure_mpris(rounds, gap, directory, players):
    """Runs `rounds` rounds per player, alternating between them; `players` maps a name to (a function that
    starts the player's socket client given a socket path, its bus name). Returns {name: {key: [ms]}}, with
    "late": how many states the bus showed only after a second look."""
    step(f"MPRIS: {rounds} rounds of PlayPause over D-Bus beside the socket per player, alternating")
    figures = {name: {key: [] for key in LATENCY_KEYS} | {"late": 0} for name in players}
    with ExitStack() as stack:
        probe = stack.enter_context(BusProbe())
        clients = {}
        for name, (start, bus_name) in players.items():
            client = stack.enter_context(start(Path(directory) / f"{name.split()[0]}-mpris.sock"))
            probe.wait_for(bus_name, client.process)
            client.send("pause", None)  # every round starts and ends paused: one player plays at a time
            clients[name] = (client, bus_name)
        for index in range(rounds):
            order = list(players) if index % 2 == 0 else list(reversed(players))
            for name in order:
                client, bus_name = clients[name]
                player_round(probe, client, bus_name, figures[name], (index // 2) % 2 == 1, gap)
    return figures


def player_round(probe, client, bus_name, figures, bus_first, gap):
    """One round on one paused player: its socket's and the bus's requests that do nothing, then resume and
    pause through the socket and PlayPause twice through the bus (or the bus first), each `gap` seconds after
    the last request; after each command, once `gap` has passed, PlaybackStatus must show its state."""
    time.sleep(gap)
    sent, replied = client.noop()
    figures["socket_noop"].append((replied - sent) / 1e6)
    time.sleep(gap)
    figures["dbus_ping"].append(probe.ping(bus_name))

    def socket(command):
        sent, replied = client.send(command, None)
        return (replied - sent) / 1e6

    by_socket = [("socket_resume", lambda: socket("play"), "Playing"),
                 ("socket_pause", lambda: socket("pause"), "Paused")]
    by_bus = [("dbus_resume", lambda: probe.call(bus_name, "PlayPause"), "Playing"),
              ("dbus_pause", lambda: probe.call(bus_name, "PlayPause"), "Paused")]
    for key, command, expected in (by_bus + by_socket) if bus_first else (by_socket + by_bus):
        time.sleep(gap)
        figures[key].append(command())
        time.sleep(gap)
        status = probe.status(bus_name)
        if status != expected:
            time.sleep(0.2)
            status = probe.status(bus_name)
            if status != expected:
                sys.exit(f"{bus_name} shows {status} after {key}, not {expected}")
            figures["late"] += 1


# MARK: - 2. Idle CPU and wake-ups


def measure_idle(seconds, directory, starters):
    """Starts every contender one after the other (`starters` maps a name to a function that starts it given a
    scratch socket path and the BusProbe, waits until it is on the bus when it should be, and returns (process,
    clean-up)), lets them settle, then reads their CPU time and context switches before and after `seconds`,
    all together. Returns {name: {"ticks", "cpu_ms", "wakeups", "preempted", "threads", "gone", "seconds"}}."""
    step(f"idle CPU: {len(starters)} players side by side, {seconds} s")
    with ExitStack() as stack:
        probe = stack.enter_context(BusProbe())
        processes = {}
        for name, start in starters.items():
            process, cleanup = start(Path(directory) / f"idle-{len(processes)}.sock", probe)
            stack.callback(cleanup)
            processes[name] = process
        time.sleep(SETTLE)
        before = {name: snapshot(process.pid) for name, process in processes.items()}
        began = time.monotonic()
        time.sleep(seconds)
        after = {name: snapshot(process.pid) for name, process in processes.items()}
        window = time.monotonic() - began
        for name, process in processes.items():
            if process.poll() is not None:
                sys.exit(f"{name} ended ({process.returncode}) while it was measured idle")
    return {name: idle_figures(before[name], after[name], window) for name in starters}


def idle_figures(start, end, window):
    """The differences between two snapshots of one process, over a window of `window` seconds."""
    earlier = start["threads"]

    def total(field):
        return sum(values[field] - earlier.get(tid, (0, 0, 0))[field] for tid, values in end["threads"].items())

    return {"ticks": end["ticks"] - start["ticks"], "cpu_ms": total(0) / 1e6, "wakeups": total(1),
            "preempted": total(2), "threads": len(end["threads"]), "gone": len(set(earlier) - set(end["threads"])),
            "seconds": window}


def snapshot(pid):
    """The process's CPU time in clock ticks (utime + stime of /proc/PID/stat, every thread's) and, per thread,
    (ns on a CPU from schedstat, voluntary and involuntary context switches from status)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    ticks = int(fields[11]) + int(fields[12])  # utime and stime, the 14th and 15th fields
    threads = {}
    for task in Path(f"/proc/{pid}/task").iterdir():
        try:
            cpu = int((task / "schedstat").read_text().split()[0])
            status = dict(line.split(":", 1) for line in (task / "status").read_text().splitlines() if ":" in line)
        except (FileNotFoundError, ProcessLookupError):
            continue  # the thread ended meanwhile
        threads[task.name] = (cpu, int(status["voluntary_ctxt_switches"]), int(status["nonvoluntary_ctxt_switches"]))
    return {"ticks": ticks, "threads": threads}


# MARK: - The table


def mpris_rows(figures, idle, percentile, ms, verdict):
    """The PlayPause rows (splay beside mpv with mpv-mpris, each beside its own socket from the same rounds),
    the D-Bus round trip of a call that does nothing, and the idle CPU rows."""
    splay, mpv = figures["splay"], figures["mpv"]

    def pair(values):
        return f"{ms(percentile(values, 0.5), 2)} / {ms(percentile(values, 0.99), 2)}"

    version = subprocess.run(["dpkg-query", "-W", "-f=${Version}", "mpv-mpris"], capture_output=True,
                             text=True).stdout.strip() or "(version unknown)"
    rows = []
    for direction, socket_splay, socket_mpv in (("pause", "`pause`", "`set_property pause true`"),
                                                ("resume", "`play`", "`set_property pause false`")):
        late = splay["late"] + mpv["late"]
        rows.append([
            f"MPRIS `PlayPause` over D-Bus that {'pauses' if direction == 'pause' else 'resumes'}, p50 / p99",
            f"D-Bus {pair(splay['dbus_' + direction])}; its socket's {socket_splay}, same rounds: "
            f"{pair(splay['socket_' + direction])}",
            f"mpv + mpv-mpris {version}: D-Bus {pair(mpv['dbus_' + direction])}; mpv IPC {socket_mpv}, same rounds: "
            f"{pair(mpv['socket_' + direction])}" + (f" ({late} states seen late on the bus)" if late else ""),
            "— (context)", "—"])
    rows.append(["Round trip of a request that does nothing, in the same rounds, p50 (context)",
                 f"D-Bus {ms(percentile(splay['dbus_ping'], 0.5), 2)} (`Peer.Ping`, sd-bus); socket "
                 f"{ms(percentile(splay['socket_noop'], 0.5), 2)} (`unsubscribe`)",
                 f"mpv-mpris: D-Bus {ms(percentile(mpv['dbus_ping'], 0.5), 2)} (`Peer.Ping`, GDBus); mpv IPC "
                 f"{ms(percentile(mpv['socket_noop'], 0.5), 2)} (`client_name`)", "—", "—"])
    for state, splay_name, peers in (
            ("idle (nothing loaded)", "splay idle", [("`--no-mpris`", "splay idle, no MPRIS"),
                                                     ("`mpv --idle` + mpv-mpris", "mpv idle")]),
            ("paused (a track loaded)", "splay paused", [("mpv paused + mpv-mpris", "mpv paused")])):
        figure = idle[splay_name]
        share = max(shares(figure))
        rows.append([
            f"CPU of `splay serve` with MPRIS on, {state}, over {figure['seconds']:.0f} s",
            idle_cell(figure), "; ".join(f"{label}: {idle_cell(idle[name])}" for label, name in peers),
            "0 % (issue 21): `top`'s 0.0 %, under 0.05 %",
            verdict(share < 0.05, f"{share:.3f} % of a CPU")])
    return rows


def shares(figure):
    """The window's CPU share in percent from the threads' time on a CPU, and from the process's clock ticks
    (which also count threads that ended in the window, but only in whole ticks of 10 ms)."""
    window_ms = figure["seconds"] * 1000
    return figure["cpu_ms"] / window_ms * 100, figure["ticks"] * 10 / window_ms * 100


def idle_cell(figure):
    """CPU share, clock ticks, time on a CPU and wake-ups of one idle player."""
    gone = f", {figure['gone']} ended in the window" if figure["gone"] else ""
    ticks = f"{figure['ticks']} tick" + ("" if figure["ticks"] == 1 else "s")
    return (f"{shares(figure)[0]:.3f} % ({ticks}; {figure['cpu_ms']:.2f} ms on a CPU; "
            f"{figure['wakeups']} wake-ups; {figure['threads']} threads{gone})")


MPRIS_NOTES = """\
- MPRIS: every process of the run finds a private session bus (`dbus-daemon --session` on a socket of its own,
  started by the script) through DBUS_SESSION_BUS_ADDRESS, so every splay above runs with MPRIS on, as users
  run it, and no desktop's media keys reach it. PlayPause: {rounds} rounds per player on `splay serve --socket`
  and on mpv (as above, looping the FLAC) with Debian's mpv-mpris plugin (`--script=/usr/lib/mpv-mpris/mpris.so`),
  both running, one playing at a time, the rounds alternating between them. Each round starts paused and
  times, {gap} ms apart, a request that does nothing on each channel, then resume and pause through the player's
  socket and `PlayPause` twice over D-Bus (the socket first in half the rounds, the bus first in the others);
  {gap} ms after each command `PlaybackStatus` is read (untimed) and must show the state it led to, and the next
  command follows {gap} ms later. D-Bus figures: Benchmarks/Sources/MPRISProbe, an sd-bus client on one open
  connection, from just before `sd_bus_call` sends the call (built beforehand) to the parsed reply, through the
  bus daemon both ways; socket figures as in the acknowledgement rows. splay replies to `PlayPause` once the
  server confirmed the cork or the uncork, as on its socket. mpv-mpris 0.7.1 (Debian 12's) implements
  `PlayPause` with `mpv_set_property(pause)` and replies when that returns, once mpv's core applied the pause
  (its ao_pulse waits for the cork, as for an IPC `set_property pause`): its reply is not a queued one.
- Idle CPU: the players are started one after the other and left {settle:.0f} s to settle: `splay serve` with
  MPRIS on and nothing loaded, the same with `--no-mpris`, `splay serve` with the 30 s FLAC loaded, played and
  paused through its socket (the connection then closed), `mpv --idle` and mpv with the FLAC loaded and
  paused, both with mpv-mpris. All are then read together before and after the window: CPU ticks are utime +
  stime of /proc/PID/stat (every thread's, ended ones too, in whole 1/100 s: a difference of one can stand for
  a few ms), the share and the time on a CPU come from the threads' /proc/PID/task/TID/schedstat (ns), wake-ups
  are the sum of their `voluntary_ctxt_switches` (one each time a thread went back to sleep); a thread that
  ended in the window is named, its share of these is missing. The target holds when both the share and the
  ticks over the window stay under 0.05 % of a CPU, which `top` shows as 0.0 %.
"""
