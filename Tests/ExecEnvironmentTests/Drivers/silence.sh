#!/bin/sh
# Never writes anything: reads requests and ignores them until its input ends.
echo "silence: started, will not answer" >&2
while IFS= read -r ignored; do :; done
