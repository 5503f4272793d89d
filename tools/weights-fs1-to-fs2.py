#!/usr/bin/env python3
"""Converts a damas weight file of feature set 1 into feature set 2 (docs/FORMAT.md).

Every group but the patterns is the same in both sets and is copied. Feature set 1's
4-square diamonds (top, lower left, lower right, bottom; a weight per row of the top and state,
own and opponent pieces) are folded into feature set 2's 4x4 regions: each diamond lies inside
a region, and the weight of every configuration of that region gains the diamond weight of the
state the configuration gives the diamond. The converted file evaluates a position without
kings exactly as the old one did; with kings it differs, since the regions see men only (the
diamonds saw kings as pieces too).

usage: tools/weights-fs1-to-fs2.py OLD.h5 NEW.h5
"""
import sys

import h5py
import numpy as np

GROUPS = ["material", "man_square", "king_square", "structure", "back_rank", "king_mobility", "runaway"]


def geometry(size):
    """Row and file of each bit of the padded layout (core/board.h), by bit."""
    width = size // 2
    row, file = {}, {}
    for s in range(size * width):
        bit = s + s // (2 * width)
        r, c = s // width, s % width
        row[bit], file[bit] = r, (2 * c + 1 if r % 2 == 0 else 2 * c)
    return width, row, file


def diamonds(size):
    """Feature set 1's diamonds, in its order: (bits top, left, right, bottom; row of the top)."""
    width, row, _ = geometry(size)
    out = []
    for bit in range(64):
        if bit not in row:
            continue
        dl, dr = bit + width, bit + width + 1
        bottom = dl + width + 1
        if dl in row and dr in row and bottom in row and row[bottom] == row[bit] + 2:
            out.append(((bit, dl, dr, bottom), row[bit]))
    return out


def regions(size):
    """Feature set 2's regions, in its order: the bits of each, in bit order."""
    _, row, file = geometry(size)
    out = []
    for r0 in range(0, size - 3, 2):
        for f0 in range(0, size - 3, 2):
            out.append(sorted(b for b in row if r0 <= row[b] < r0 + 4 and f0 <= file[b] < f0 + 4))
    return out


def base3(bits):
    return sum(3**k for k in range(4) if bits >> k & 1)


def fold(patterns, size):
    """The region weights (2, R * 6561) holding the diamond weights `patterns` (2, (S - 2) * 81)."""
    regs = regions(size)
    table = np.zeros((2, len(regs), 6561), dtype=np.float64)
    configs = np.array([[c // 3**k % 3 for k in range(8)] for c in range(6561)])
    for squares, top_row in diamonds(size):
        r = next(i for i, reg in enumerate(regs) if set(squares) <= set(reg))
        where = [regs[r].index(b) for b in squares]
        own = sum((configs[:, where[k]] == 1) << k for k in range(4))
        opp = sum((configs[:, where[k]] == 2) << k for k in range(4))
        state = np.array([base3(o) for o in range(16)])[own] + 2 * np.array([base3(o) for o in range(16)])[opp]
        occupied = (own | opp) != 0
        for p in range(2):
            table[p, r] += np.where(occupied, patterns[p, top_row * 81 + state], 0.0)
    return table.reshape(2, -1).astype(np.float32)


def main():
    if len(sys.argv) != 3:
        sys.exit("usage: tools/weights-fs1-to-fs2.py OLD.h5 NEW.h5")
    with h5py.File(sys.argv[1], "r") as old:
        attrs = dict(old.attrs)
        if attrs.get("format", b"") not in (b"damas evaluation weights", "damas evaluation weights"):
            sys.exit(f"error: {sys.argv[1]} is not a damas weight file")
        if int(attrs["feature_set"]) != 1:
            sys.exit(f"error: {sys.argv[1]} holds feature set {int(attrs['feature_set'])}, not 1")
        size = int(attrs["board_size"])
        groups = {g: old[g][:] for g in GROUPS}
        regs = fold(old["patterns"][:].astype(np.float64), size)
    provenance = attrs.get("provenance", b"")
    provenance = provenance.decode() if isinstance(provenance, bytes) else provenance
    attrs["provenance"] = np.bytes_(provenance + "; converted from feature set 1 by tools/weights-fs1-to-fs2.py")
    attrs["feature_set"] = np.uint64(2)
    with h5py.File(sys.argv[2], "w", libver=("v110", "latest")) as new:
        for k, val in attrs.items():
            new.attrs[k] = val
        for g, data in list(groups.items()) + [("regions", regs)]:
            new.create_dataset(g, data=data.astype(np.float32), chunks=data.shape, shuffle=True,
                               compression="gzip", compression_opts=6, fletcher32=True)


if __name__ == "__main__":
    main()
