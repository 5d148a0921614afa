#!/bin/sh
# Names its environment after an embedded one ("Local").
. "$(dirname "$0")/lib.sh"
while read_request; do
    case $method in
    initialize) answer_initialize Local '["launch"]' ;;
    *) answer_normally ;;
    esac
done
