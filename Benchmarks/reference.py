#!/usr/bin/env python3
"""Reference benchmark for `make bench-reference`: the monitor workload's geometry with shapely.

Reads the workload `geofence-bench --export DIR` wrote (20 places: 10 circles, 10 polygons of 64
vertices; 1,000,000 fixes) and computes the signed distance of every fix to every place, the
geometry the monitor needs, in two ways: vectorised over numpy arrays (shapely 2), and a per-fix
Python loop over a sample (what a tracker hook written in Python would do). The figures are
printed beside geofence's, measured in the same session, so that the comparison is a ratio on one
machine, not a number from elsewhere.
"""
import csv
import json
import math
import sys
import time

import numpy as np
import shapely


class Workload:
    """The places (projected to a local plane, polygons prepared) and the fixes as numpy arrays."""

    def __init__(self, directory):
        with open(f"{directory}/places.json") as f:
            workload = json.load(f)
        self.lat0, self.lon0 = workload["center"]
        coordinates = np.loadtxt(f"{directory}/fixes.csv", delimiter=",", skiprows=1)
        lat, lon = coordinates[:, 0], coordinates[:, 1]
        # A local metric plane around the centre (equirectangular; a few metres of error over
        # 10 km is irrelevant to a speed comparison).
        self.kx = 111_320.0 * math.cos(math.radians(self.lat0))
        self.ky = 110_574.0
        self.shapes = []
        for place in workload["places"]:
            if place["type"] == "circle":
                cx, cy = self.project(place["latitude"], place["longitude"])
                self.shapes.append(("circle", float(cx), float(cy), place["radius"]))
            else:
                polygons = []
                for rings in place["polygons"]:
                    projected = [
                        list(zip(*self.project([p[1] for p in ring], [p[0] for p in ring]))) for ring in rings
                    ]
                    polygons.append(shapely.Polygon(projected[0], projected[1:]))
                geometry = shapely.MultiPolygon(polygons) if len(polygons) > 1 else polygons[0]
                shapely.prepare(geometry)
                boundary = geometry.boundary
                shapely.prepare(boundary)
                self.shapes.append(("polygon", geometry, boundary))
        self.x, self.y = self.project(lat, lon)

    def project(self, latitude, longitude):
        return (np.asarray(longitude) - self.lon0) * self.kx, (np.asarray(latitude) - self.lat0) * self.ky


def signed_distance_rate(w, sample=None):
    """Fixes a second for the signed distance of every fix to every place, vectorised."""
    x, y = (w.x, w.y) if sample is None else (w.x[:sample], w.y[:sample])
    start = time.perf_counter()
    points = shapely.points(x, y)
    checksum = 0.0
    for shape in w.shapes:
        if shape[0] == "circle":
            signed = np.hypot(x - shape[1], y - shape[2]) - shape[3]
        else:
            inside = shapely.contains_xy(shape[1], x, y) | shapely.touches(shape[1], points)
            distance = shapely.distance(shape[2], points)
            signed = np.where(inside, -distance, distance)
        checksum += float(signed.sum())
    return len(x) / (time.perf_counter() - start)


def containment_rate(w):
    """Fixes a second for containment alone (no distance), the cheapest question, vectorised."""
    start = time.perf_counter()
    inside_count = 0
    for shape in w.shapes:
        if shape[0] == "circle":
            inside_count += int((np.hypot(w.x - shape[1], w.y - shape[2]) <= shape[3]).sum())
        else:
            inside_count += int(shapely.contains_xy(shape[1], w.x, w.y).sum())
    return len(w.x) / (time.perf_counter() - start)


def per_fix_rate(w, sample=20_000):
    """Fixes a second for a per-fix Python loop (what a tracker hook in Python would do)."""
    start = time.perf_counter()
    for i in range(sample):
        point = shapely.Point(w.x[i], w.y[i])
        for shape in w.shapes:
            if shape[0] == "circle":
                math.hypot(w.x[i] - shape[1], w.y[i] - shape[2]) - shape[3]
            else:
                d = shape[2].distance(point)
                -d if shape[1].intersects(point) else d
    return sample / (time.perf_counter() - start)


if __name__ == "__main__":
    w = Workload(sys.argv[1])
    vectorised = signed_distance_rate(w)
    per_fix = per_fix_rate(w)
    containment = containment_rate(w)
    print(f"shapely {shapely.__version__}, numpy {np.__version__}, {len(w.x)} fixes x {len(w.shapes)} places")
    print(f"  vectorised signed distances: {vectorised:,.0f} fixes/s")
    print(f"  per-fix Python loop:         {per_fix:,.0f} fixes/s")
    print(f"  vectorised containment only: {containment:,.0f} fixes/s")
