"""Compares `geofence stays` (default settings) with trackintel's staypoints on real recordings.

    python Benchmarks/staypoints.py GEOFENCE_BINARY [--geolife DIR] [--csv FILE ...]

trackintel (in the virtualenv `make staypoints` makes) reads the recordings and finds its
staypoints with the settings the issue names: the sliding method of Li et al. (2008) with 200 m,
20 minutes, a gap threshold of 12 hours and the last staypoint included. The same positionfixes,
in time order per user, go to `geofence stays -` as NDJSON with its defaults (200 m, 20 min, two
strays, 12 h). A geofence visit and a trackintel staypoint match when their times overlap and
their centres are within 200 m; the script prints, per data set and in all, how many of each side
the other matches, the differences of arrival and departure of matched pairs, and which of
trackintel's known weaknesses explains each unmatched one:

- "gap counted": trackintel ends a staypoint at the first fix 200 m away, so the time from the
  last fix at the place to that fix (a trip out, or a logger switched off for hours) counts as
  staying; a staypoint whose own fixes span less than 20 minutes is one geofence does not report,
  since silence is not evidence of staying.
- "split by a wild fix": trackintel ends a staypoint at the first fix 200 m from its anchor, so
  one outlier (or a noisy anchor at the edge) cuts a stay into pieces shorter than 20 minutes
  that it drops; geofence forgives up to two strays and measures from the running centroid.

GeoLife is not part of the repository (Microsoft Research's licence); trackintel's own test data
holds eleven GeoLife users (tests/data/geolife_long_10_MB in the mie-lab/trackintel repository,
MIT): pass that folder with --geolife.
"""

import argparse
import json
import math
import subprocess
import sys
import warnings

import geopandas as gpd
import pandas as pd
import trackintel as ti

RADIUS = 200.0
MINIMUM = pd.Timedelta(minutes=20)


def metres(lat1, lon1, lat2, lon2):
    """Haversine distance in metres."""
    p1, p2 = math.radians(lat1), math.radians(lat2)
    dp, dl = p2 - p1, math.radians(lon2 - lon1)
    a = math.sin(dp / 2) ** 2 + math.cos(p1) * math.cos(p2) * math.sin(dl / 2) ** 2
    return 2 * 6371008.8 * math.asin(math.sqrt(min(1.0, a)))


def trackintel_staypoints(pfs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        pfs, sp = pfs.generate_staypoints(
            method="sliding", dist_threshold=RADIUS, time_threshold=20, gap_threshold=12 * 60,
            include_last=True)
    return pfs, sp


def geofence_visits(binary, fixes):
    """Runs `geofence stays -` on one user's fixes; returns the closed visits."""
    lines = []
    for row in fixes.itertuples():
        ms = int(row.tracked_at.timestamp() * 1000)
        lines.append(json.dumps({"timestamp": ms, "latitude": row.lat, "longitude": row.lon}))
    out = subprocess.run(
        [binary, "stays", "-", "--format", "ndjson"], input="\n".join(lines) + "\n", text=True,
        capture_output=True, check=True).stdout
    visits = []
    for line in out.splitlines():
        v = json.loads(line)
        if v.get("departure") is None:
            continue
        visits.append((pd.Timestamp(v["arrival"]), pd.Timestamp(v["departure"]), v["latitude"], v["longitude"]))
    return visits


def compare(name, binary, pfs, totals):
    pfs = pfs.copy()
    pfs["lat"] = pfs.geometry.y
    pfs["lon"] = pfs.geometry.x
    pfs["tracked_at"] = pd.to_datetime(pfs["tracked_at"], utc=True)
    pfs = pfs.drop_duplicates(subset=["user_id", "tracked_at"]).sort_values(["user_id", "tracked_at"])
    pfs_sp, sp = trackintel_staypoints(pfs)
    found = {"ti": 0, "gf": 0, "ti_matched": 0, "gf_matched": 0, "trip": 0, "split": 0, "ti_other": 0,
             "gf_other": 0, "starts": [], "ends": [], "ends_last": [], "fixes": len(pfs)}
    for user, fixes in pfs.groupby("user_id"):
        visits = geofence_visits(binary, fixes)
        staypoints = []
        user_sp = sp[sp["user_id"] == user]
        for sp_id, row in user_sp.iterrows():
            started = pd.Timestamp(row["started_at"]).tz_convert("UTC")
            finished = pd.Timestamp(row["finished_at"]).tz_convert("UTC")
            members = pfs_sp[pfs_sp["staypoint_id"] == sp_id]
            last_inside = members["tracked_at"].max() if len(members) else started
            point = row[sp.geometry.name]
            staypoints.append((started, finished, point.y, point.x, pd.Timestamp(last_inside)))
        found["ti"] += len(staypoints)
        found["gf"] += len(visits)

        def overlaps(a0, a1, alat, alon, b0, b1, blat, blon):
            return a0 <= b1 and b0 <= a1 and metres(alat, alon, blat, blon) <= RADIUS

        for s0, s1, slat, slon, last in staypoints:
            partners = [v for v in visits if overlaps(s0, s1, slat, slon, *v)]
            if partners:
                found["ti_matched"] += 1
                best = max(partners, key=lambda v: (min(s1, v[1]) - max(s0, v[0])))
                found["starts"].append(abs((best[0] - s0).total_seconds()))
                found["ends"].append(abs((best[1] - s1).total_seconds()))
                found["ends_last"].append(abs((best[1] - last).total_seconds()))
            elif last - s0 < MINIMUM:
                found["trip"] += 1
            else:
                found["ti_other"] += 1
        for v0, v1, vlat, vlon in visits:
            if any(overlaps(v0, v1, vlat, vlon, s0, s1, slat, slon) for s0, s1, slat, slon, _ in staypoints):
                found["gf_matched"] += 1
                continue
            inside = fixes[(fixes["tracked_at"] >= v0) & (fixes["tracked_at"] <= v1)]
            anchor = inside.iloc[0] if len(inside) else None
            far = anchor is not None and any(
                metres(anchor.lat, anchor.lon, r.lat, r.lon) >= RADIUS for r in inside.itertuples())
            found["split" if far else "gf_other"] += 1
    report(name, found)
    for key, value in found.items():
        totals[key] = totals.get(key, [] if isinstance(value, list) else 0) + value


def median(values):
    return pd.Series(values).median() / 60 if values else float("nan")


def quantile(values, q):
    return pd.Series(values).quantile(q) / 60 if values else float("nan")


def report(name, f):
    print(f"{name}: {f['fixes']} fixes; trackintel {f['ti']} staypoints, geofence {f['gf']} visits")
    if f["ti"]:
        print(f"  trackintel's matched by geofence: {f['ti_matched']}/{f['ti']} "
              f"({100 * f['ti_matched'] / f['ti']:.0f}%); unmatched: {f['trip']} gap counted, "
              f"{f['ti_other']} other")
    if f["gf"]:
        print(f"  geofence's matched by trackintel: {f['gf_matched']}/{f['gf']} "
              f"({100 * f['gf_matched'] / f['gf']:.0f}%); unmatched: {f['split']} split by a wild fix, "
              f"{f['gf_other']} other")
    if f["starts"]:
        print(f"  matched pairs: arrival differs by {median(f['starts']):.1f} min median, "
              f"{quantile(f['starts'], 0.9):.1f} min p90; departure by {median(f['ends']):.1f} min median, "
              f"{quantile(f['ends'], 0.9):.1f} min p90 (from trackintel's last fix at the place: "
              f"{median(f['ends_last']):.1f} min median, {quantile(f['ends_last'], 0.9):.1f} min p90)")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("geofence")
    parser.add_argument("--geolife", help="a GeoLife Data folder (USER/Trajectory/*.plt)")
    parser.add_argument("--csv", nargs="*", default=[],
                        help="trackintel positionfix CSVs (user_id;longitude;latitude;accuracy;tracked_at)")
    args = parser.parse_args()
    totals = {}
    if args.geolife:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            pfs, _ = ti.io.read_geolife(args.geolife, print_progress=False)
        compare("GeoLife (" + args.geolife.rstrip("/").split("/")[-1] + ")", args.geofence, pfs, totals)
    for path in args.csv:
        frame = pd.read_csv(path, sep=";")
        frame["tracked_at"] = pd.to_datetime(frame["tracked_at"]).dt.tz_localize("Europe/Zurich")
        gdf = gpd.GeoDataFrame(
            frame, geometry=gpd.points_from_xy(frame.longitude, frame.latitude), crs="EPSG:4326")
        pfs = ti.Positionfixes(gdf[["user_id", "tracked_at", "geometry"]])
        compare(path.split("/")[-1], args.geofence, pfs, totals)
    if len([a for a in [args.geolife] + args.csv if a]) > 1:
        report("all", totals)


if __name__ == "__main__":
    sys.exit(main())
