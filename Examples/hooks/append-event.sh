#!/bin/sh
# Example hook: append the event's JSON (from standard input) to a file, once per event id.
# Delivery is at-least-once: after a crash a hook may run again with the same GEOFENCE_EVENT_ID,
# so this hook skips an id it has already written.
file="${1:-events-seen.ndjson}"
if [ -f "$file" ] && grep -q "\"$GEOFENCE_EVENT_ID\"" "$file"; then
  exit 0
fi
cat >> "$file"
echo >> "$file"
