#!/usr/bin/env python3
"""Measures how long another process holds a trace store's write lock: tries BEGIN IMMEDIATE
(no busy wait) every few milliseconds until the file STOP exists, and prints the longest
stretch during which the lock could not be taken, and how many attempts failed.
Usage: measure-write-lock.py STORE STOPFILE"""
import os, sqlite3, sys, time

store, stop = sys.argv[1], sys.argv[2]
db = sqlite3.connect(store, timeout=0, isolation_level=None)
longest, busy_since, failures, tries = 0.0, None, 0, 0
while not os.path.exists(stop):
    tries += 1
    now = time.monotonic()
    try:
        db.execute("BEGIN IMMEDIATE")
        db.execute("ROLLBACK")
        if busy_since is not None:
            longest = max(longest, now - busy_since)
            busy_since = None
    except sqlite3.OperationalError:
        failures += 1
        if busy_since is None:
            busy_since = now
    time.sleep(0.002)
if busy_since is not None:
    longest = max(longest, time.monotonic() - busy_since)
print(f"longest write-lock hold seen: {longest:.3f} s ({failures} of {tries} tries busy)")
