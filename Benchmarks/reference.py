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

directory = sys.argv[1]
with open(f"{directory}/places.json") as f:
    workload = json.load(f)
lat0, lon0 = workload["center"]
coordinates = np.loadtxt(f"{directory}/fixes.csv", delimiter=",", skiprows=1)
lat, lon = coordinates[:, 0], coordinates[:, 1]

# A local metric plane around the centre (equirectangular; a few metres of error over 10 km is
# irrelevant to a speed comparison).
kx = 111_320.0 * math.cos(math.radians(lat0))
ky = 110_574.0


def project(latitude, longitude):
    return (np.asarray(longitude) - lon0) * kx, (np.asarray(latitude) - lat0) * ky


shapes = []
for place in workload["places"]:
    if place["type"] == "circle":
        cx, cy = project(place["latitude"], place["longitude"])
        shapes.append(("circle", float(cx), float(cy), place["radius"]))
    else:
        polygons = []
        for rings in place["polygons"]:
            projected = [list(zip(*project([p[1] for p in ring], [p[0] for p in ring]))) for ring in rings]
            polygons.append(shapely.Polygon(projected[0], projected[1:]))
        geometry = shapely.MultiPolygon(polygons) if len(polygons) > 1 else polygons[0]
        shapely.prepare(geometry)
        boundary = geometry.boundary
        shapely.prepare(boundary)
        shapes.append(("polygon", geometry, boundary))

x, y = project(lat, lon)
start = time.perf_counter()
points = shapely.points(x, y)
checksum = 0.0
for shape in shapes:
    if shape[0] == "circle":
        signed = np.hypot(x - shape[1], y - shape[2]) - shape[3]
    else:
        inside = shapely.contains_xy(shape[1], x, y) | shapely.touches(shape[1], points)
        distance = shapely.distance(shape[2], points)
        signed = np.where(inside, -distance, distance)
    checksum += float(signed.sum())
vectorised = len(x) / (time.perf_counter() - start)

# Containment alone (no distance), the cheapest question; the monitor needs the distance too.
start = time.perf_counter()
inside_count = 0
for shape in shapes:
    if shape[0] == "circle":
        inside_count += int((np.hypot(x - shape[1], y - shape[2]) <= shape[3]).sum())
    else:
        inside_count += int(shapely.contains_xy(shape[1], x, y).sum())
containment = len(x) / (time.perf_counter() - start)

sample = 20_000
start = time.perf_counter()
loop_checksum = 0.0
for i in range(sample):
    point = shapely.Point(x[i], y[i])
    for shape in shapes:
        if shape[0] == "circle":
            loop_checksum += math.hypot(x[i] - shape[1], y[i] - shape[2]) - shape[3]
        else:
            d = shape[2].distance(point)
            loop_checksum += -d if shape[1].intersects(point) else d
per_fix = sample / (time.perf_counter() - start)

print(f"shapely {shapely.__version__}, numpy {np.__version__}, {len(x)} fixes x {len(shapes)} places")
print(f"  vectorised signed distances: {vectorised:,.0f} fixes/s (checksum {checksum:.0f})")
print(f"  per-fix Python loop:         {per_fix:,.0f} fixes/s")
print(f"  vectorised containment only: {containment:,.0f} fixes/s ({inside_count} inside)")
