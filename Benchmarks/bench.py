#!/usr/bin/env python3
"""`make bench`: geofence's whole-command figures beside the reference libraries, in one session.

usage: bench.py BIN_DIR WORKLOAD_DIR [--runs N] [--commute-days N]

BIN_DIR holds the release `geofence`; WORKLOAD_DIR what `geofence-bench --export DIR --workloads`
wrote. Every figure on one line of the table is measured here, now, on this machine, so the ratio
holds even on a machine whose speed drifts with other people's work: shapely's vectorised
containment and signed distance (the monitor workload's geometry on pre-parsed numpy arrays,
nothing else), trackintel's generate_staypoints on pre-parsed positionfixes, and geofence run as
whole processes from the files (parsing, filter, monitor, rules, output). Each figure, the
references' too, is the median of N runs; the load average is printed before and after, because a shared machine is
noisy and the reader should know how noisy.
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
parser.add_argument("--runs", type=int, default=3)
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


def median_run(command, runs=args.runs, setup=None):
    results = []
    for _ in range(runs):
        if setup:
            setup()
        results.append(timed(command))
    return statistics.median(r[0] for r in results), max(r[1] for r in results)


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


def row(name, ours, unit, reference, reference_name, goal, higher_is_better=True):
    ratio = ours / reference if higher_is_better else reference / ours
    met = "yes" if ratio >= goal else "no"
    rows.append((name, ours, unit, reference, reference_name, ratio, goal, met))


print(f"machine: {machine()}")
load_before = os.getloadavg()
print(f"load average before: {load_before[0]:.2f} {load_before[1]:.2f} {load_before[2]:.2f}")

# The references, on pre-parsed arrays (nothing but the geometry or the stay detection).
import reference  # noqa: E402  (Benchmarks/reference.py)

ref = reference.Workload(work)


def median_rate(measure, runs=args.runs):
    """The median of `runs` measurements: a reference timed once is one moment of a shared
    machine, which can be twice as slow as the next (the geofence figures are medians too)."""
    return statistics.median(measure() for _ in range(runs))


containment = median_rate(lambda: reference.containment_rate(ref))
signed = median_rate(lambda: reference.signed_distance_rate(ref, sample=200_000))

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


trackintel_rate = median_rate(trackintel_staypoints_rate)

# geofence, whole processes from the files.
places = os.path.join(work, "places.yaml")
fixes = os.path.join(work, "fixes.ndjson")
fix_count = count_lines(fixes)
replay_seconds, replay_rss = median_run([geofence, "replay", places, fixes])
replay_rate = fix_count / replay_seconds
row("replay, 1 device, 20 places", replay_rate, "fixes/s", containment, "shapely containment", 1.0)
row("  the same against signed distance", replay_rate, "fixes/s", signed, "shapely signed distance", 1.0)

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
commute_seconds, _ = median_run([geofence, "replay", os.path.join(repo, "Rules", "commute.yaml"), commute])
commute_rate = commute_count / commute_seconds
row(f"replay, {args.commute_days} synthetic days (commute rules)", commute_rate, "fixes/s", containment,
    "shapely containment", 1.0)

# Many devices: the same number of fixes spread over 10,000 devices.
devices = os.path.join(work, "devices.ndjson")
device_lines = count_lines(devices)
devices_seconds, devices_rss = median_run([geofence, "replay", places, devices])
devices_rate = device_lines / devices_seconds
row("replay, 10k devices x 100 fixes", devices_rate, "fixes/s", replay_rate, "replay, 1 device", 1 / 1.5)
per_device_kib = max(0.0, devices_rss - replay_rss) / 10_000
print(f"peak RSS: 1 device {replay_rss / 1024:.1f} MiB, 10k devices {devices_rss / 1024:.1f} MiB")
rows.append(("  state per device (peak RSS above 1 device)", per_device_kib, "KiB", 4.0, "goal", 4.0 / per_device_kib
             if per_device_kib else float("inf"), 1.0, "yes" if per_device_kib <= 4.0 else "no"))

# Both cores: 1,000 devices on both cores (devices and JSON lines on two threads each) against the
# same command held to one core with taskset (`--threads 1` alone still reads on a thread of its
# own beside the pipeline's, so it is not a one-core run).
many = os.path.join(work, "devices-1k.ndjson")
one_core, _ = median_run(["taskset", "-c", "0", geofence, "replay", places, many, "--threads", "1"])
two_threads, _ = median_run([geofence, "replay", places, many, "--threads", "2"])
row("replay, 1k devices, 2 cores against 1", one_core / two_threads, "x", 1.0, "1 core (taskset)", 1.7)

# Stays.
stays = os.path.join(work, "stays.ndjson")
stay_count = count_lines(stays)
stays_seconds, _ = median_run([geofence, "stays", stays, "--radius", "200", "--min-stay", "20m"])
row("stays (200 m, 20 min)", stay_count / stays_seconds, "fixes/s", trackintel_rate,
    "trackintel generate_staypoints", 10.0)

# run --history with the SQLite store against replay, on the same input.
state = tempfile.mkdtemp(prefix="geofence-bench-")


def fresh_state():
    shutil.rmtree(state, ignore_errors=True)


history_seconds, _ = median_run(
    [geofence, "run", places, "--input", fixes, "--history", "--state", state], setup=fresh_state)
shutil.rmtree(state, ignore_errors=True)
row("run --history (SQLite store), 1 device", history_seconds, "s", replay_seconds, "replay", 1 / 1.2,
    higher_is_better=False)
row("simulate day --interval 1s", statistics.median(simulate_seconds), "s/day", 1.0, "goal: 1 s", 1.0,
    higher_is_better=False)

load_after = os.getloadavg()
print(f"load average after:  {load_after[0]:.2f} {load_after[1]:.2f} {load_after[2]:.2f}")
print(f"inputs: {fix_count:,} fixes (1 device), {commute_count:,} (commute days), {device_lines:,} (10k devices), "
      f"{stay_count:,} (stays); all figures are medians of {args.runs} runs")
print()
print("| benchmark | geofence | reference | ratio | goal | met |")
print("| --- | ---: | --- | ---: | ---: | --- |")
for name, ours, unit, reference_value, reference_name, ratio, goal, met in rows:
    if unit == "fixes/s":
        ours_text, ref_text = f"{ours:,.0f} fixes/s", f"{reference_name}: {reference_value:,.0f}"
    elif unit == "x":
        ours_text, ref_text = f"{ours:.2f}x", reference_name
    elif unit == "KiB":
        ours_text, ref_text = f"{ours:.1f} KiB", f"{reference_value:.0f} KiB"
    else:
        ours_text, ref_text = f"{ours:.2f} {unit}", f"{reference_name}: {reference_value:.2f} s"
    print(f"| {name} | {ours_text} | {ref_text} | {ratio:.2f} | {goal:.2f} | {met} |")
