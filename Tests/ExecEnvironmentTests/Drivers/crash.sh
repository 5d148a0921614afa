#!/bin/sh
# Exits with status 3 in the middle of a case, when asked to purchase.
. "$(dirname "$0")/lib.sh"
while read_request; do
    if [ "$action" = purchase ]; then
        echo "crash: the simulator went away" >&2
        exit 3
    fi
    answer_normally
done
