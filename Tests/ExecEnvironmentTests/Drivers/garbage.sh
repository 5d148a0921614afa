#!/bin/sh
# Answers a purchase with a line that is not JSON, longer than 200 characters.
. "$(dirname "$0")/lib.sh"
while read_request; do
    if [ "$action" = purchase ]; then
        printf 'Purchase sheet presented <garbage>'
        i=0
        while [ $i -lt 30 ]; do printf ' 0123456789'; i=$((i + 1)); done
        printf ' END-OF-GARBAGE\n'
        continue
    fi
    answer_normally
done
