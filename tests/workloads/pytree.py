# SPDX-License-Identifier: MIT
"""The tree workload (tests/workloads/tree.c) in Python, for recording
real CPython builds:

  <module> -> main -> work_a -> leaf_a   60 % of the CPU time (3 units)
                   -> work_b -> leaf_b   40 % (2 units)

leaf_a and leaf_b are the same code, so the split holds by construction.

usage: python pytree.py [MILLISECONDS] (default 1000) of CPU time.
"""
import sys
import time

UNIT = 20000


def leaf_a():
    s = 0
    for i in range(UNIT):
        s += i * i
    return s


def leaf_b():
    s = 0
    for i in range(UNIT):
        s += i * i
    return s


def work_a():
    return leaf_a() + leaf_a() + leaf_a()


def work_b():
    return leaf_b() + leaf_b()


def main(ms):
    end = time.process_time() + ms / 1000
    while time.process_time() < end:
        work_a()
        work_b()


main(int(sys.argv[1]) if len(sys.argv) > 1 else 1000)
