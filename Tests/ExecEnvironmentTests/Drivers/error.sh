#!/bin/sh
# Answers a purchase with an error response.
. "$(dirname "$0")/lib.sh"
while read_request; do
    if [ "$action" = purchase ]; then
        printf '{"id":%s,"error":{"code":1000,"message":"the purchase sheet did not appear"}}\n' "$id"
        continue
    fi
    answer_normally
done
