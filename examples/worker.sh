#!/bin/sh
# A stand-in range worker for the README's `millrace run` blocks: "replays" units
# [first, first + count) by sleeping 0.2 ms per unit, twice that in the second half of the span
# 0:9999 (its hot stretch), so a model fitted from one run has something to learn.
# Usage: worker.sh FIRST COUNT
first=$1 count=$2
seconds=$(awk -v f="$first" -v c="$count" 'BEGIN { per = (f >= 5000) ? 0.0004 : 0.0002; printf "%.4f", c * per }')
sleep "$seconds"
echo "replayed $count units from $first in ${seconds}s"
