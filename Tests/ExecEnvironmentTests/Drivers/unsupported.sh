#!/bin/sh
# Announces no relaunch (the runner must not send it) and answers a purchase as unsupported.
. "$(dirname "$0")/lib.sh"
while read_request; do
    case $method/$action in
    initialize/) answer_initialize unsupported '["launch","purchase"]' ;;
    perform/purchase) printf '{"id":%s,"result":{"status":"unsupported","reason":"no payment sheet in this environment"}}\n' "$id" ;;
    perform/relaunch) answer_access '["sent-anyway"]' ;;
    *) answer_normally ;;
    esac
done
