#!/usr/bin/env bash
# Starts and stops the foreign portals (../shared/foreign beside the repository, or
# $UNITOOL_FOREIGN_DIR) for Tests/EndToEndTests/ForeignRecordingsTests.swift: the portals' own
# setup.sh, start.sh and stop.sh, with their state (venvs, PID files, logs) in $FOREIGN_STATE,
# never in the shared folder (read-only in CI).
#
#   FOREIGN_STATE=/tmp/x ./Scripts/foreign-portals.sh start campus   # setup.sh (idempotent), start.sh
#   FOREIGN_STATE=/tmp/x ./Scripts/foreign-portals.sh stop campus    # stop.sh: the PIDs start.sh saved
#   ./Scripts/foreign-portals.sh dir                                 # where the portals are
#
# The portals' ports are fixed: start.sh refuses when one is taken, and so does this.
set -euo pipefail
here="$(cd "$(dirname "$0")/.." && pwd)"
foreign="${UNITOOL_FOREIGN_DIR:-$here/../shared/foreign}"
action="${1:?usage: foreign-portals.sh start|stop|dir PORTAL}"
if [ "$action" = dir ]; then
    cd "$foreign" && pwd
    exit 0
fi
portal="${2:?usage: foreign-portals.sh start|stop PORTAL}"
: "${FOREIGN_STATE:?FOREIGN_STATE must name a writable folder (the shared folder is read-only)}"
export FOREIGN_STATE
case "$portal" in
    */* | .*) echo "foreign-portals.sh: not a portal name: $portal" >&2; exit 2 ;;
esac
[ -x "$foreign/$portal/start.sh" ] || { echo "foreign-portals.sh: no portal at $foreign/$portal" >&2; exit 2; }
case "$action" in
    # setup.sh installs only what is missing (a venv from PyPI the first time in this state folder).
    start) "$foreign/$portal/setup.sh" >&2 && "$foreign/$portal/start.sh" >&2 ;;
    stop) "$foreign/$portal/stop.sh" >&2 ;;
    *) echo "foreign-portals.sh: unknown action $action" >&2; exit 2 ;;
esac
