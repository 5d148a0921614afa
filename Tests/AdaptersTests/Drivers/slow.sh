#!/bin/sh
# Takes 1.5 s over a purchase, announcing with a progress notification that it needs up to 5 s.
. "$(dirname "$0")/lib.sh"
while read_request; do
    if [ "$action" = purchase ]; then
        printf '{"method":"progress","params":{"id":%s,"waitMs":5000,"message":"waiting for the App Store"}}\n' "$id"
        sleep 1.5
    fi
    answer_normally
done
