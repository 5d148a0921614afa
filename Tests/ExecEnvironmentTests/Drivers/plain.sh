#!/bin/sh
# Answers every request normally; announces no failableCalls.
. "$(dirname "$0")/lib.sh"
while read_request; do
    answer_normally
done
