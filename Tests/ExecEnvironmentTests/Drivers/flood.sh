#!/bin/sh
# Answers a purchase with an endless stream of progress notifications for a request that is not in flight
# (the runner ignores them), never with a response.
. "$(dirname "$0")/lib.sh"
while read_request; do
    if [ "$action" = purchase ]; then
        echo "flood: purchase received, writing progress for request 999999" >&2
        yes '{"method":"progress","params":{"id":999999}}'
        exit 0
    fi
    answer_normally
done
