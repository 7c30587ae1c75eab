#!/bin/bash
# The README's "A first day" transcript, made by running this: a month of a phone logger's history
# (30 synthetic days, written by `geofence simulate day`), the first start on it, then the phone
# leaving home and coming back, live, about three minutes of real time.
# Usage: Examples/first-day.sh [FOLDER]   (run from the repository, after `swift build`)
set -u
REPO=$(pwd)
G=${G:-$(swift build --show-bin-path)/geofence}
FOLDER=${1:-$(mktemp -d)}
cd "$FOLDER" && rm -rf state logs rules fixes.ndjson out
mkdir -p rules out && cp -rL "$REPO/Rules/." rules/
for d in $(seq -w 1 30); do $G simulate day --date 2026-11-$d --interval 30s; done > fixes.ndjson
echo "\$ wc -l fixes.ndjson"; wc -l fixes.ndjson
echo "\$ geofence check rules/hooks.yaml --log-directory logs"
$G check rules/hooks.yaml --log-directory logs 2>&1
echo "\$ geofence run rules/hooks.yaml --input fixes.ndjson --follow --state state --log-directory logs"
$G run rules/hooks.yaml --input fixes.ndjson --follow --state state --log-directory logs > out/run.stdout 2> out/run.stderr &
RUN=$!
until grep -q "caught up" out/run.stderr; do sleep 0.5; done
sleep 1
now() { date +%s%3N; }
fix() { echo "{\"latitude\":$1,\"longitude\":$2,\"timestamp\":$(now),\"horizontalAccuracy\":12}" >> fixes.ndjson; }
# The phone walks out 400 m (a fix every 10 s), waits a minute, comes home.
for i in 1 2 3 4 5 6; do fix 51.5043 -0.1246; sleep 10; done
sleep 50
for i in 1 2 3 4 5 6 7 8; do fix 51.5007 -0.1246; sleep 10; done
sleep 2
kill -TERM $RUN; wait $RUN
echo "--- stdout (first and last lines)"; head -4 out/run.stdout; echo "..."; tail -8 out/run.stdout
echo "--- stderr"; cat out/run.stderr
echo "\$ geofence actions --state state --table --limit 4"
$G actions --state state --table --limit 4 --time-zone Europe/London
