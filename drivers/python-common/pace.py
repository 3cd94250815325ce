"""Waiting for an open loop's intended start as litebench's own loop waits for it.

A transaction's latency runs from its intended start, so a driver that wakes late adds its
lateness to every latency. time.sleep alone wakes tens to hundreds of microseconds late; like
litebench's loop (src/workload/load/schedule.rs, wait_until), this sleeps while the start is
more than 2 ms away, then in 50 us steps, then yields for the last 100 us.
"""

import os
import time


def wait_until(deadline_ns, clock=time.perf_counter_ns):
    while True:
        left = deadline_ns - clock()
        if left <= 0:
            return
        if left > 2_000_000:
            time.sleep(min(left - 1_000_000, 50_000_000) / 1e9)
        elif left > 100_000:
            time.sleep(50e-6)
        else:
            os.sched_yield()
