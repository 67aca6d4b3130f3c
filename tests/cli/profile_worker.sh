#!/bin/sh
# A range worker whose duration follows a known profile: 150 ms of start-up plus 0.5 ms a unit
# (1.5 ms on the hot stretch [6000, 8000)), times a noise factor in [0.8, 1.2] fixed by the range's
# first unit. Usage: profile_worker.sh FIRST COUNT
f=$1 c=$2
lo=$(( f > 6000 ? f : 6000 )); hi=$(( f + c < 8000 ? f + c : 8000 )); hot=$(( hi > lo ? hi - lo : 0 ))
us=$(( (150000 + (c - hot) * 500 + hot * 1500) * (80 + (f * 7919 + 13) % 41) / 100 ))
exec sleep "$(printf '%d.%06d' $((us / 1000000)) $((us % 1000000)))"
