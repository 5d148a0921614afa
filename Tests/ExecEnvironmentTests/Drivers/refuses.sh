#!/bin/sh
# Refuses the case "second" at reset, and writes a notification protocol version 1 does not define before
# every perform answer (the runner must ignore it).
. "$(dirname "$0")/lib.sh"
while read_request; do
    case $method in
    reset)
        case $line in
        *'"id":"second"'*) printf '{"id":%s,"result":{"unsupported":"this farm has no second account"}}\n' "$id" ;;
        *) answer_empty ;;
        esac
        ;;
    perform)
        printf '{"method":"log","params":{"text":"performing %s"}}\n' "$action"
        answer_normally
        ;;
    *) answer_normally ;;
    esac
done
