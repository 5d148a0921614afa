#!/bin/sh
# Answers initialize with a progress notification asking for 300 ms more, then never answers.
. "$(dirname "$0")/lib.sh"
echo "promises: started" >&2
while read_request; do
    printf '{"method":"progress","params":{"id":%s,"waitMs":300,"message":"almost"}}\n' "$id"
done
