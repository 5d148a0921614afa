#!/bin/sh
# Takes 3 s over a purchase, announcing with a progress notification that it needs up to 20 s.
. "$(dirname "$0")/lib.sh"
while read_request; do
    if [ "$action" = purchase ]; then
        printf '{"method":"progress","params":{"id":%s,"waitMs":20000,"message":"waiting for the App Store"}}\n' "$id"
        sleep 3
    fi
    answer_normally
done
