#!/bin/sh
# Writes the expected outputs of GoldenReplayTests with a given geofence binary:
#   Tests/Golden/make-golden.sh path/to/geofence
# Run it only with a build whose output is known good (the outputs were first written with the
# build before the performance work of issue 15, which must not change a byte of them; rewritten
# once when engine times became the nearest millisecond, each change checked to be a time exactly
# one millisecond later).
set -eu
geofence=$1
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
data="$repo/Tests/GeofenceInputTests/Data"
cd "$here"
"$geofence" replay "$repo/Rules/commute.yaml" "$repo/Examples/synthetic-day.ndjson" > synthetic-day.out 2>/dev/null
"$geofence" replay posmo.yaml "$data/posmo_trajectory.csv" > posmo.out 2>/dev/null
"$geofence" replay korita.yaml "$data/gpx/korita-zbevnica.gpx" > korita.out 2>/dev/null
"$geofence" replay cerknica.yaml "$data/gpx/cerknicko-jezero.gpx" > cerknica.out 2>/dev/null
# Many devices: 24 people's synthetic days at 30 s, each line tagged with its device, interleaved
# by time (then by person), as GoldenReplayTests builds them.
tmp=$(mktemp -d)
for seed in $(seq 1 24); do
  "$geofence" simulate day --interval 30s --seed "$seed" |
    sed "s/^{/{\"deviceId\":\"person-$seed\",/" |
    awk -v s="$seed" '{ match($0, /"timestamp":[0-9]+/); t = substr($0, RSTART + 12, RLENGTH - 12); printf "%s %03d %s\n", t, s, $0 }' >> "$tmp/all"
done
sort -k1,1n -k2,2n "$tmp/all" | cut -d' ' -f3- > "$tmp/devices.ndjson"
"$geofence" replay "$repo/Rules/commute.yaml" "$tmp/devices.ndjson" > devices.out 2>/dev/null
rm -rf "$tmp"
