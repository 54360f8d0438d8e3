"""The second process of a contention load (started by runtime/contention.py as a script: it imports
nothing of metalforge, so it starts fast): copies memory for `share` of every period and sleeps the
rest, on the CPU (numpy) or a CUDA GPU (cupy, else torch).

It talks to its parent through a small shared file of doubles (`SLOTS`): the parent writes the share
(0: paused, negative: stop); the worker writes its calibrated full copy bandwidth, the share it runs
at (`seen`, at the start of each period: from then on it copies only while the share is positive),
and after every chunk the bytes it has moved (read + write) and the seconds it spent copying, so the
parent can tell the worker's copy speed over any window. It exits by itself when its parent is gone (checked every
period), so it never outlives the process that started it.
"""
from __future__ import annotations

import argparse
import mmap
import os
import struct
import sys
import time
from typing import Callable

SLOTS = ("share", "bytes", "busy_s", "ready", "full_bytes_per_s", "seen")
SHARE, BYTES, BUSY, READY, FULL, SEEN = range(len(SLOTS))
CONTROL_BYTES = 8 * len(SLOTS)
CALIBRATE_S = 0.2


def copier(device: str, megabytes: int) -> tuple[Callable[[int], None], int]:
    """A function copying chunk `i` of a buffer of `megabytes` (cycling), and the bytes a chunk moves
    (its read and its write)."""
    n = megabytes << 20
    if device == "cpu":
        import numpy as np

        chunk = min(n, 8 << 20)
        src, dst = np.ones(n, np.uint8), np.zeros(n, np.uint8)

        def copy(i: int) -> None:
            offset = (i * chunk) % (n - chunk + 1)
            np.copyto(dst[offset:offset + chunk], src[offset:offset + chunk])
        return copy, 2 * chunk
    chunk = min(n, 256 << 20)
    try:
        import cupy as cp

        src, dst = cp.ones(n, cp.uint8), cp.zeros(n, cp.uint8)
        synchronize = cp.cuda.Device().synchronize
    except ImportError:
        import torch

        src, dst = torch.ones(n, dtype=torch.uint8, device="cuda"), torch.zeros(n, dtype=torch.uint8, device="cuda")
        synchronize = torch.cuda.synchronize

    def copy_gpu(i: int) -> None:
        offset = (i * chunk) % (n - chunk + 1)
        dst[offset:offset + chunk] = src[offset:offset + chunk]
        synchronize()
    return copy_gpu, 2 * chunk


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--control", required=True)
    parser.add_argument("--device", choices=["cpu", "cuda"], default="cpu")
    parser.add_argument("--megabytes", type=int, default=256)
    parser.add_argument("--period", type=float, default=0.05)
    parser.add_argument("--parent", type=int, required=True)
    args = parser.parse_args()
    with open(args.control, "r+b") as f:
        control = mmap.mmap(f.fileno(), CONTROL_BYTES)

    def get(slot: int) -> float:
        return struct.unpack_from("d", control, 8 * slot)[0]

    def put(slot: int, value: float) -> None:
        struct.pack_into("d", control, 8 * slot, value)

    try:
        copy, moved = copier(args.device, args.megabytes)
        copy(0)
        start, chunks = time.perf_counter(), 0
        while time.perf_counter() - start < CALIBRATE_S:
            copy(chunks)
            chunks += 1
        put(FULL, chunks * moved / (time.perf_counter() - start))
    except Exception as e:  # noqa: BLE001 - reported to the parent, which raises with it
        print(f"contention load cannot copy on {args.device}: {type(e).__name__}: {e}", file=sys.stderr)
        put(READY, -1.0)
        return 1
    put(READY, 1.0)
    total, busy, i = 0.0, 0.0, 0
    while os.getppid() == args.parent:
        share = get(SHARE)
        if share < 0:
            break
        put(SEEN, share)
        period_start = time.perf_counter()
        until = period_start + share * args.period
        while get(SHARE) > 0 and time.perf_counter() < until:  # a pause takes effect after one chunk
            t = time.perf_counter()
            copy(i)
            i += 1
            busy += time.perf_counter() - t
            total += moved
            put(BUSY, busy)
            put(BYTES, total)
        rest = period_start + args.period - time.perf_counter()
        if rest > 0:
            time.sleep(rest)
    return 0


if __name__ == "__main__":
    sys.exit(main())
