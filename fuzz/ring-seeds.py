#!/usr/bin/env python3
# Writes fuzz/corpus/ring/lifecycle and lifecycle-id: a ring holding one
# record of each kind the recorder decodes (rec_decode.c), as the kernel
# lays them out for sp-record's events: MMAP2, COMM (an exec), FORK, a
# SAMPLE with a callchain, user registers and a stack copy, LOST,
# THROTTLE, SWITCH, EXIT, each with its sample_id trailer (TID, TIME,
# CPU; then IDENTIFIER in the -id seed, as with --off-cpu).
# Input layout: see fuzz/fuzz_ring.c.  Run from the top of the tree.
import struct

def rec(kind, misc, body, time, ident):
    trailer = struct.pack('<IIQII', 100, 101, time, 1, 0)
    if ident is not None:
        trailer += struct.pack('<Q', ident)
    size = 8 + len(body) + len(trailer)
    return struct.pack('<IHH', kind, misc, size) + body + trailer

def sample(time, ident):
    body = b''
    if ident is not None:
        body += struct.pack('<Q', ident)
    body += struct.pack('<IIQII', 100, 101, time, 1, 0)
    body += struct.pack('<Q', 3) + struct.pack('<QQQ',
        0xfffffffffffffe00, 0xffffffff81000000, 0xffffffff81000010)
    body += struct.pack('<Q', 2) + b''.join(struct.pack('<Q', 0x1000 + i)
                                            for i in range(20))
    stack = bytes(range(64))
    body += struct.pack('<Q', len(stack)) + stack + struct.pack('<Q', 48)
    size = 8 + len(body)
    return struct.pack('<IHH', 9, 2, size) + body  # misc: user mode

def ring(ident):
    t = 1000
    path = b'/usr/lib/libc.so.6\0\0\0\0\0\0'
    recs = [
        rec(10, 0, struct.pack('<IIQQQIIQQII', 100, 100, 0x7f0000000000,
            0x1000, 0, 8, 1, 42, 0, 5, 2) + path, t, ident),
        rec(3, 0x2000, struct.pack('<II', 100, 100) + b'worker\0\0', t + 1,
            ident),
        rec(7, 0, struct.pack('<IIIIQ', 100, 100, 101, 100, t + 2), t + 2,
            ident),
        sample(t + 3, ident),
        rec(2, 0, struct.pack('<QQ', 7, 12), t + 4, ident),
        rec(5, 0, struct.pack('<QQQ', t + 5, 7, 7), t + 5, ident),
        rec(14, 0x2000, b'', t + 6, ident),
        rec(4, 0, struct.pack('<IIIIQ', 100, 100, 101, 100, t + 7), t + 7,
            ident),
    ]
    data = b''.join(recs)
    head = struct.pack('>H', len(data))
    first = 0x81 if ident is not None else 0x01   # 8 KiB of data
    return bytes([first]) + bytes(8) + head + bytes(8) + data

for name, ident in (('lifecycle', None), ('lifecycle-id', 77)):
    with open('fuzz/corpus/ring/' + name, 'wb') as f:
        f.write(ring(ident))
