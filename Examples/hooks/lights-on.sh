#!/bin/sh
# Example hook: pretend to switch on the lights in a room. The event arrives in GEOFENCE_*
# environment variables; the arguments come from the rule ([lights-on.sh, --room, hall]).
room=unknown
while [ $# -gt 0 ]; do
  case "$1" in
    --room) room="$2"; shift 2 ;;
    *) shift ;;
  esac
done
printf 'lights on in %s: %s %s at %s (event %s)\n' "$room" "$GEOFENCE_TRANSITION" "$GEOFENCE_PLACE" \
  "$GEOFENCE_TIME" "$GEOFENCE_EVENT_ID"
