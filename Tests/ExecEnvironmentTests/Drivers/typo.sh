#!/bin/sh
# Announces an action name that does not exist ("purchse").
. "$(dirname "$0")/lib.sh"
while read_request; do
    case $method in
    initialize) answer_initialize typo '["launch","purchse"]' ;;
    *) answer_normally ;;
    esac
done
