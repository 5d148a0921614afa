#!/bin/sh
# Names its environment after a built-in one: its first argument, "Local" when none is given.
. "$(dirname "$0")/lib.sh"
name=${1:-Local}
while read_request; do
    case $method in
    initialize) answer_initialize "$name" '["launch"]' ;;
    *) answer_normally ;;
    esac
done
