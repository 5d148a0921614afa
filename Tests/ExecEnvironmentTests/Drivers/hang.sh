#!/bin/sh
# Never answers a purchase: reads on (so it stays alive) until it is killed.
. "$(dirname "$0")/lib.sh"
while read_request; do
    if [ "$action" = purchase ]; then
        echo "hang: purchase received, not answering" >&2
        while IFS= read -r ignored; do :; done
        exit 0
    fi
    answer_normally
done
