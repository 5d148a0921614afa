#!/bin/sh
# Announces no action at all: every step of every case is skipped as unsupported.
. "$(dirname "$0")/lib.sh"
while read_request; do
    case $method in
    initialize) answer_initialize nothing '[]' ;;
    *) answer_normally ;;
    esac
done
