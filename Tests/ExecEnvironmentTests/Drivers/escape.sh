#!/bin/sh
# Starts a helper in a session of its own (setsid: it leaves the driver's process group) that holds the driver's
# stdout open and writes its process ID to the file $1; then, asked to purchase, exits with status 3 without
# answering. With $2 = daemon, the helper holds nothing and the driver answers every request normally.
. "$(dirname "$0")/lib.sh"
pidfile=$1
mode=${2:-holder}
if [ "$mode" = daemon ]; then
    setsid sh -c 'echo $$ > "$0"; exec sleep 1000' "$pidfile" </dev/null >/dev/null 2>&1 &
else
    setsid sh -c 'echo $$ > "$0"; exec sleep 1000' "$pidfile" &
fi
# The helper's process ID is on record before the driver answers anything.
while [ ! -s "$pidfile" ]; do :; done
while read_request; do
    if [ "$action" = purchase ] && [ "$mode" != daemon ]; then
        echo "escape: exiting, the helper keeps stdout open" >&2
        exit 3
    fi
    answer_normally
done
