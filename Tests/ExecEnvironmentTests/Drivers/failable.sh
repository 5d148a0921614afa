#!/bin/sh
# Announces the failableCalls in $1 (a JSON array); a purchase that carries a failNext is observed failed.
. "$(dirname "$0")/lib.sh"
while read_request; do
    case $method/$action in
    initialize/)
        printf '{"id":%s,"result":{"protocolVersion":1,"environment":"failable","actions":["launch","relaunch","purchase"],"failableCalls":%s}}\n' \
            "$id" "${1:-[]}"
        ;;
    perform/purchase)
        case $line in
        *'"failNext":{"call":"purchase","error":"networkError"}'*)
            printf '{"id":%s,"result":{"status":"observed","observation":{"access":[],"result":"failed"}}}\n' "$id" ;;
        *) answer_access '["pro"]' ;;
        esac
        ;;
    *) answer_normally ;;
    esac
done
