"""A music collection in the audio bench: the time from spawn to first audio of a 10,000-file folder tree.

The tree is 100 folders of 100 files, each a hard link to one short FLAC (no disk space, and the page cache
holds it, as it would a collection read a moment before). splay walks the tree, sorts it naturally and
checks each file's first bytes before the first track plays; mpv, given the same folder, is the peer.
"""

import os
from pathlib import Path

from benchsupport import step

FOLDERS = 100
FILES_PER_FOLDER = 100


def make_tree(directory, source):
    """Builds the tree under `directory` from hard links to `source`; returns its root."""
    root = Path(directory) / "Collection"
    for folder in range(1, FOLDERS + 1):
        album = root / f"Artist {folder % 17}" / f"Album {folder}"
        album.mkdir(parents=True)
        for track in range(1, FILES_PER_FOLDER + 1):
            os.link(source, album / f"{track} - Track {track}.flac")
    return root


def measure_collection(rounds, directory, source, contenders, first_audio, monitor):
    """Spawns each contender on the tree `rounds` times, round-robin; returns {name: [ms to first audio]}."""
    root = make_tree(directory, source)
    step(f"first audio of a {FOLDERS * FILES_PER_FOLDER}-file folder tree: {rounds} spawns per player")
    figures = {name: [] for name in contenders}
    for _ in range(rounds):
        for name, command in contenders.items():
            figures[name].append(first_audio(monitor, command + [str(root)]))
    return figures


def collection_rows(figures, percentile, ms, verdict):
    """The table row: splay's median beside mpv's, against the issue's target of 1 s."""
    medians = {name: percentile(values, 0.5) for name, values in figures.items()}
    missing = {name: sum(v is None for v in values) for name, values in figures.items()}
    peers = "; ".join(f"`{name}` {ms(value)}" + (f" ({missing[name]} without audio)" if missing[name] else "")
                      for name, value in medians.items() if name != "splay")
    splay = medians["splay"]
    met = splay is not None and splay <= 1000
    return [[f"First audio of a {FOLDERS * FILES_PER_FOLDER:,}-file folder tree (median from spawn)", ms(splay),
             peers, "≤ 1 s", verdict(met, f"{ms(splay)} > 1 s")]]
