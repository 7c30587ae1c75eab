#!/usr/bin/env python3
"""`make bench`: geofence's whole-command figures beside the reference libraries, in one session.

usage: bench.py BIN_DIR WORKLOAD_DIR [--runs N] [--commute-days N]  (N rounds, 5 unless given)

BIN_DIR holds the release `geofence`; WORKLOAD_DIR what `geofence-bench --export DIR --workloads`
wrote. Every figure on one line of the table is measured here, now, on this machine, so the ratio
holds even on a machine whose speed drifts with other people's work: shapely's vectorised
containment and signed distance (the monitor workload's geometry on pre-parsed numpy arrays,
nothing else), trackintel's generate_staypoints on pre-parsed positionfixes, and geofence run as
whole processes from the files (parsing, filter, monitor, rules, output). The figures are
measured in N rounds, each measuring every figure once with the two figures of a ratio one
right after the other; a figure is the median over the rounds, a ratio the median of the rounds'
own ratios, and the lowest and highest of those are printed too. The load average is printed
before and after, because a shared machine is noisy and the reader should know how noisy.
"""
import argparse
import os
import platform
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

here = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, here)

parser = argparse.ArgumentParser()
parser.add_argument("bin")
parser.add_argument("workload")
parser.add_argument("--runs", type=int, default=5)
parser.add_argument("--commute-days", type=int, default=10)
args = parser.parse_args()
geofence = os.path.join(args.bin, "geofence")
work = args.workload
repo = os.path.dirname(here)


def count_lines(path):
    with open(path, "rb") as f:
        return sum(1 for _ in f)


def timed(command, stdout=subprocess.DEVNULL, cwd=None):
    """Runs a command, returning (wall seconds, peak RSS in KiB); a failure stops the bench.

    The peak comes from /usr/bin/time: the rusage of a child forked from this Python process
    would count the pages it shared with Python (pandas and trackintel loaded) before exec.
    """
    with tempfile.NamedTemporaryFile("r") as peak:
        start = time.perf_counter()
        process = subprocess.run(
            ["/usr/bin/time", "-f", "%M", "-o", peak.name] + command, stdout=stdout, stderr=subprocess.PIPE,
            cwd=cwd)
        seconds = time.perf_counter() - start
        if process.returncode != 0:
            sys.exit(f"bench: {' '.join(command)} failed ({process.returncode}):\n"
                     f"{process.stderr.decode(errors='replace')}")
        return seconds, int(peak.read().split()[-1])


def machine():
    model = "unknown CPU"
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    model = line.split(":", 1)[1].strip()
                    break
    except OSError:
        pass
    return f"{platform.node()}: {model}, {os.cpu_count()} cores, {platform.system()} {platform.release()}"


rows = []


def row(name, ours, unit, reference, reference_name, ratios, goal, higher_is_better=True):
    """A line of the table: `ours` and `reference` are medians over the rounds, the ratio the
    median of the rounds' own ratios (each of two figures measured one after the other)."""
    ratio = statistics.median(ratios)
    met = "yes" if ratio >= goal else "no"
    rows.append((name, ours, unit, reference, reference_name, ratio, goal, met, min(ratios), max(ratios)))


print(f"machine: {machine()}")
load_before = os.getloadavg()
print(f"load average before: {load_before[0]:.2f} {load_before[1]:.2f} {load_before[2]:.2f}")

# The references, on pre-parsed arrays (nothing but the geometry or the stay detection).
import reference  # noqa: E402  (Benchmarks/reference.py)

ref = reference.Workload(work)

import pandas as pd  # noqa: E402
import trackintel as ti  # noqa: E402

stays_csv = os.path.join(work, "stays.csv")
frame = pd.read_csv(stays_csv)
frame["tracked_at"] = pd.to_datetime(frame["tracked_at"], utc=True)
import geopandas as gpd  # noqa: E402

positionfixes = gpd.GeoDataFrame(
    frame, geometry=gpd.points_from_xy(frame["longitude"], frame["latitude"]), crs="EPSG:4326"
)
positionfixes.index.name = "id"
positionfixes = ti.Positionfixes(positionfixes) if hasattr(ti, "Positionfixes") else positionfixes


def trackintel_staypoints_rate():
    start = time.perf_counter()
    positionfixes.as_positionfixes.generate_staypoints(method="sliding", dist_threshold=200, time_threshold=20)
    return len(frame) / (time.perf_counter() - start)


places = os.path.join(work, "places.yaml")
fixes = os.path.join(work, "fixes.ndjson")
fix_count = count_lines(fixes)

# Crossings: synthetic days at 1 Hz through Rules/commute.yaml (ten crossings a day).
commute = os.path.join(work, "commute-days.ndjson")
simulate_seconds = []
with open(commute, "wb") as out:
    for day in range(args.commute_days):
        date = f"2026-03-{2 + day % 28:02d}" if day < 28 else f"2026-04-{1 + (day - 28) % 30:02d}"
        seconds, _ = timed([geofence, "simulate", "day", "--interval", "1s", "--seed", str(day + 1), "--date", date],
                           stdout=out)
        simulate_seconds.append(seconds)
commute_count = count_lines(commute)
devices = os.path.join(work, "devices.ndjson")
device_lines = count_lines(devices)
many = os.path.join(work, "devices-1k.ndjson")
stays = os.path.join(work, "stays.ndjson")
stay_count = count_lines(stays)
state = tempfile.mkdtemp(prefix="geofence-bench-")

# Rounds: each measures every figure once, a figure right after the one it is compared with, so
# that each ratio is of two runs a second apart; a shared machine's speed drifts by tens of per
# cent over a minute, which figures measured minutes apart (all the references first, then
# geofence) put into the ratios.
measured = {key: [] for key in (
    "containment", "replay", "history", "commute", "devices", "signed", "one_core", "two_threads",
    "trackintel", "stays")}
peaks = {"replay": 0, "devices": 0}
for _ in range(args.runs):
    measured["containment"].append(reference.containment_rate(ref))
    seconds, peak = timed([geofence, "replay", places, fixes])
    measured["replay"].append(seconds)
    peaks["replay"] = max(peaks["replay"], peak)
    # run --history with the SQLite store against replay, on the same input.
    shutil.rmtree(state, ignore_errors=True)
    measured["history"].append(timed([geofence, "run", places, "--input", fixes, "--history", "--state", state])[0])
    measured["commute"].append(timed([geofence, "replay", os.path.join(repo, "Rules", "commute.yaml"), commute])[0])
    # Many devices: the same number of fixes spread over 10,000 devices.
    seconds, peak = timed([geofence, "replay", places, devices])
    measured["devices"].append(seconds)
    peaks["devices"] = max(peaks["devices"], peak)
    measured["signed"].append(reference.signed_distance_rate(ref, sample=200_000))
    # Both cores: 1,000 devices on both cores (JSON lines decoded on two threads, devices on one)
    # against the same command held to one core with taskset (`--threads 1` alone still reads on
    # a thread of its own beside the pipeline's, so it is not a one-core run).
    measured["one_core"].append(timed(["taskset", "-c", "0", geofence, "replay", places, many, "--threads", "1"])[0])
    measured["two_threads"].append(timed([geofence, "replay", places, many, "--threads", "2"])[0])
    measured["trackintel"].append(trackintel_staypoints_rate())
    measured["stays"].append(timed([geofence, "stays", stays, "--radius", "200", "--min-stay", "20m"])[0])
shutil.rmtree(state, ignore_errors=True)


def median(key):
    return statistics.median(measured[key])


keys = list(measured)


def ratios(function):
    """`function` of each round's figures, by name."""
    return [function(dict(zip(keys, values))) for values in zip(*measured.values())]


replay_rate = fix_count / median("replay")
row("replay, 1 device, 20 places", replay_rate, "fixes/s", median("containment"), "shapely containment",
    ratios(lambda r: fix_count / r["replay"] / r["containment"]), 1.0)
row("  the same against signed distance", replay_rate, "fixes/s", median("signed"), "shapely signed distance",
    ratios(lambda r: fix_count / r["replay"] / r["signed"]), 1.0)
row(f"replay, {args.commute_days} synthetic days (commute rules)", commute_count / median("commute"), "fixes/s",
    median("containment"), "shapely containment", ratios(lambda r: commute_count / r["commute"] / r["containment"]),
    1.0)
row("replay, 10k devices x 100 fixes", device_lines / median("devices"), "fixes/s", replay_rate, "replay, 1 device",
    ratios(lambda r: device_lines / r["devices"] / (fix_count / r["replay"])), 1 / 1.5)
per_device_kib = max(0.0, peaks["devices"] - peaks["replay"]) / 10_000
print(f"peak RSS: 1 device {peaks['replay'] / 1024:.1f} MiB, 10k devices {peaks['devices'] / 1024:.1f} MiB")
rows.append(("  state per device (peak RSS above 1 device)", per_device_kib, "KiB", 4.0, "goal",
             4.0 / per_device_kib if per_device_kib else float("inf"), 1.0, "yes" if per_device_kib <= 4.0 else "no",
             None, None))
# Its figure is itself a ratio: the median of the rounds' own, as in the ratio column.
speedups = ratios(lambda r: r["one_core"] / r["two_threads"])
row("replay, 1k devices, 2 cores against 1", statistics.median(speedups), "x", 1.0, "1 core (taskset)", speedups,
    1.7)
row("stays (200 m, 20 min)", stay_count / median("stays"), "fixes/s", median("trackintel"),
    "trackintel generate_staypoints", ratios(lambda r: stay_count / r["stays"] / r["trackintel"]), 10.0)
row("run --history (SQLite store), 1 device", median("history"), "s", median("replay"), "replay",
    ratios(lambda r: r["replay"] / r["history"]), 1 / 1.2)
simulated = statistics.median(simulate_seconds)
row("simulate day --interval 1s", simulated, "s/day", 1.0, "goal: 1 s", [1.0 / s for s in simulate_seconds], 1.0)

load_after = os.getloadavg()
print(f"load average after:  {load_after[0]:.2f} {load_after[1]:.2f} {load_after[2]:.2f}")
print(f"inputs: {fix_count:,} fixes (1 device), {commute_count:,} (commute days), {device_lines:,} (10k devices), "
      f"{stay_count:,} (stays); {args.runs} rounds, each measuring every figure once; figures are medians over the "
      "rounds, a ratio the median of the rounds' own ratios (simulate: over the days)")
print()
print("| benchmark | geofence | reference | ratio | goal | met |")
print("| --- | ---: | --- | ---: | ---: | --- |")
for name, ours, unit, reference_value, reference_name, ratio, goal, met, _, _ in rows:
    if unit == "fixes/s":
        ours_text, ref_text = f"{ours:,.0f} fixes/s", f"{reference_name}: {reference_value:,.0f}"
    elif unit == "x":
        ours_text, ref_text = f"{ours:.2f}x", reference_name
    elif unit == "KiB":
        ours_text, ref_text = f"{ours:.1f} KiB", f"{reference_value:.0f} KiB"
    else:
        ours_text, ref_text = f"{ours:.2f} {unit}", f"{reference_name}: {reference_value:.2f} s"
    print(f"| {name} | {ours_text} | {ref_text} | {ratio:.2f} | {goal:.2f} | {met} |")
print()
print("the rounds' ratios, lowest to highest:")
for name, _, _, _, _, _, _, _, low, high in rows:
    if low is not None:
        print(f"  {name.strip()}: {low:.2f} to {high:.2f}")
