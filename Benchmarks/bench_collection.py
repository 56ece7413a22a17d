"""A music collection in the audio bench: a 200,000-file folder tree, played and served.

The tree is 2,000 folders of 100 files, each a hard link to one of a few copies of a short FLAC (no disk space;
ext4 allows 65,000 links to one file; the page cache holds the tree, as it would a collection read a moment
before). Three figures against issue 32's targets: the time from spawn to first audio of `splay play DIR` (which
walks the tree, sorts it naturally and reads each file's first bytes before the first track plays; mpv, given
the same folder, is the peer), the peak RSS of that process, the size of one `ctl status` with the whole
tree in the queue of `splay serve`, and the time one `enqueue` takes there (beside a `status` round trip on
the same connection, the socket's own floor), in order and shuffled; and the time `splay serve` takes from spawn
to a restored session of 10,000 of those tracks (issue 34).
"""

import json
import os
import shutil
import socket
import subprocess
import time
from pathlib import Path

from benchsupport import step

FOLDERS = 2_000
FILES_PER_FOLDER = 100
FILES = FOLDERS * FILES_PER_FOLDER
LINKS_PER_SOURCE = 60_000  # under ext4's 65,000 links per inode


def make_tree(directory, source, folders=FOLDERS):
    """Builds the tree of `folders` folders under `directory` from hard links to copies of `source`; returns its
    root."""
    root = Path(directory) / "Collection"
    sources = []
    made = 0
    for folder in range(1, folders + 1):
        album = root / f"Artist {folder % 97}" / f"Album {folder}"
        album.mkdir(parents=True)
        for track in range(1, FILES_PER_FOLDER + 1):
            if made % LINKS_PER_SOURCE == 0:
                sources.append(Path(directory) / f"source-{len(sources)}.flac")
                shutil.copyfile(source, sources[-1])
            os.link(sources[-1], album / f"{track} - Track {track}.flac")
            made += 1
    return root


def peak_rss_mb(command, seconds, high_water_mark, stop_process):
    """The peak RSS (VmHWM, MB) of `command` over its first `seconds`, read every 10 ms."""
    process = subprocess.Popen(command, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                               stderr=subprocess.DEVNULL)
    peak = 0
    deadline = time.monotonic() + seconds
    try:
        while time.monotonic() < deadline and process.poll() is None:
            peak = max(peak, high_water_mark(process.pid))
            time.sleep(0.01)
    finally:
        stop_process(process)
    return peak / 1024


ROUND_TRIPS = 200


def round_trip_ms(connection, command, args):
    """The median milliseconds from writing one request on `connection` to reading its reply."""
    reader = connection.makefile("rb")
    times = []
    for number in range(ROUND_TRIPS):
        request = {"id": number, "command": command} | ({"args": args} if args else {})
        start = time.perf_counter()
        connection.sendall((json.dumps(request) + "\n").encode())
        reply = json.loads(reader.readline())
        times.append((time.perf_counter() - start) * 1000)
        if not reply.get("ok"):
            raise SystemExit(f"{command} failed on the {FILES:,}-track queue: {reply}")
    return sorted(times)[len(times) // 2]


def serve_figures(splay, root, source, directory, stop_process):
    """With the whole tree in the queue of `splay serve`: the bytes of one `ctl status --json`, and the median
    round trip of `status` and of `enqueue` (one file), with shuffle off and on."""
    path = Path(directory) / "collection.sock"
    server = subprocess.Popen([splay, "serve", "--no-mpris", "--no-resume", "--socket", str(path)], stdin=subprocess.DEVNULL,
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 10
        while True:
            try:
                with socket.socket(socket.AF_UNIX) as probe:
                    probe.connect(str(path))
                break
            except OSError:
                if time.monotonic() > deadline:
                    raise SystemExit("splay serve did not open its socket in 10 s")
                time.sleep(0.02)
        ctl = [splay, "ctl", "--socket", str(path)]
        subprocess.run(ctl + ["load", str(root)], check=True, stdout=subprocess.DEVNULL)
        status = subprocess.run(ctl + ["status", "--json"], check=True, capture_output=True).stdout
        if json.loads(status).get("queueLength") != FILES:
            raise SystemExit(f"splay serve did not load the {FILES:,} tracks: {status[:200]}")
        figures = {"status_bytes": len(status)}
        with socket.socket(socket.AF_UNIX) as connection:
            connection.connect(str(path))
            figures["status_ms"] = round_trip_ms(connection, "status", None)
            figures["enqueue_ms"] = round_trip_ms(connection, "enqueue", [str(source)])
            round_trip_ms(connection, "shuffle", ["on"])
            figures["shuffled_enqueue_ms"] = round_trip_ms(connection, "enqueue", [str(source)])
        return figures
    finally:
        stop_process(server)


RESTORED_TRACKS = 10_000
RESTORE_ROUNDS = 7


def restore_ms(splay, root, directory, stop_process):
    """The median milliseconds from spawning `splay serve` with a saved session of 10,000 tracks of the tree (the
    5,000th paused at 12.5 s) to its reply to a first `status` showing that session restored: the socket is
    bound before the restore and a request waits behind it, so the reply is the restored state."""
    tracks = sorted(str(path) for path in root.rglob("*.flac"))[:RESTORED_TRACKS]
    state = Path(directory) / "resume-state"
    (state / "splay").mkdir(parents=True, exist_ok=True)
    session = {"version": 1, "queue": tracks, "index": 5_000, "position": 12.5, "volume": 100, "repeat": "off",
               "shuffle": False}
    times = []
    for round_number in range(RESTORE_ROUNDS):
        (state / "splay" / "state.json").write_text(json.dumps(session))
        path = Path(directory) / f"resume-{round_number}.sock"
        start = time.perf_counter()
        server = subprocess.Popen([splay, "serve", "--no-mpris", "--socket", str(path)], stdin=subprocess.DEVNULL,
                                  stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                                  env=os.environ | {"XDG_STATE_HOME": str(state)})
        try:
            while True:
                try:
                    connection = socket.socket(socket.AF_UNIX)
                    connection.connect(str(path))
                    break
                except OSError:
                    connection.close()
                    if time.perf_counter() - start > 10:
                        raise SystemExit("splay serve did not open its socket in 10 s")
                    time.sleep(0.0005)
            with connection:
                connection.sendall(b'{"id": 1, "command": "status"}\n')
                reply = json.loads(connection.makefile("rb").readline())
            times.append((time.perf_counter() - start) * 1000)
            restored = reply.get("state", {})
            if restored.get("status") != "paused" or restored.get("queueLength") != RESTORED_TRACKS:
                raise SystemExit(f"splay serve did not restore the session: {str(reply)[:200]}")
        finally:
            stop_process(server)
    return sorted(times)[len(times) // 2]


def measure_collection(rounds, directory, source, contenders, first_audio, monitor, high_water_mark,
                       stop_process):
    """Spawns each contender on the tree `rounds` times, round-robin; then splay's RSS and status size.

    Returns {"first_audio": {name: [ms]}, "rss": {name: MB}, "serve": serve_figures(…)}."""
    step(f"building a {FILES:,}-file folder tree")
    root = make_tree(directory, source)
    step(f"first audio of the {FILES:,}-file tree: {rounds} spawns per player")
    figures = {name: [] for name in contenders}
    for _ in range(rounds):
        for name, command in contenders.items():
            figures[name].append(first_audio(monitor, command + [str(root)]))
    step("peak RSS over the first 3 s of each player on the tree, and one ctl status with it queued")
    rss = {name: peak_rss_mb(command + [str(root)], 3, high_water_mark, stop_process)
           for name, command in contenders.items()}
    serve = serve_figures(contenders["splay"][0], root, source, directory, stop_process)
    step(f"splay serve restoring a saved session of {RESTORED_TRACKS:,} tracks: {RESTORE_ROUNDS} spawns")
    serve["restore_ms"] = restore_ms(contenders["splay"][0], root, directory, stop_process)
    return {"first_audio": figures, "rss": rss, "serve": serve}


def collection_rows(results, percentile, ms, verdict):
    """The table rows: splay beside mpv, against issue 32's targets (1 s, 60 MB, 4 KB)."""
    figures = results["first_audio"]
    medians = {name: percentile(values, 0.5) for name, values in figures.items()}
    missing = {name: sum(v is None for v in values) for name, values in figures.items()}
    peers = "; ".join(f"`{name}` {ms(value)}" + (f" ({missing[name]} without audio)" if missing[name] else "")
                      for name, value in medians.items() if name != "splay")
    splay = medians["splay"]
    met = splay is not None and splay <= 1000
    rss = results["rss"]
    rss_peers = "; ".join(f"`{name}` {value:.1f} MB" for name, value in rss.items() if name != "splay")
    serve = results["serve"]
    status = serve["status_bytes"]
    floor = f"`status` round trip {serve['status_ms']:.2f} ms (the socket's floor)"
    return [
        [f"First audio of a {FILES:,}-file folder tree (median from spawn)", ms(splay), peers, "≤ 1 s",
         verdict(met, f"{ms(splay)} > 1 s")],
        [f"Peak RSS playing the {FILES:,}-file tree (first 3 s)", f"{rss['splay']:.1f} MB", rss_peers, "≤ 60 MB",
         verdict(rss["splay"] <= 60, f"{rss['splay']:.1f} MB > 60 MB")],
        [f"One `ctl status --json` with {FILES:,} tracks queued", f"{status:,} bytes", "—", "≤ 4 KB",
         verdict(status <= 4096, f"{status:,} bytes > 4 KB")],
        [f"`splay serve` start to its first `status` reply with a saved {RESTORED_TRACKS:,}-track session restored "
         "(median from spawn, paused at the saved position on the server)", ms(serve["restore_ms"]),
         "— (mpv keeps a position per file; MPD is not installed here)", "≤ 50 ms",
         verdict(serve["restore_ms"] <= 50, f"{ms(serve['restore_ms'])} > 50 ms")],
    ] + [
        [f"`enqueue` of one file to {FILES:,} queued tracks{how} (median round trip)", f"{serve[key]:.2f} ms",
         floor, "≤ 1 ms", verdict(serve[key] <= 1, f"{serve[key]:.2f} ms > 1 ms")]
        for key, how in (("enqueue_ms", ""), ("shuffled_enqueue_ms", ", shuffle on"))
    ]
