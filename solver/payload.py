"""The stored payload of a position, the same layout in both games' tables.

A payload is one unsigned integer (``uint8`` for Sparro, ``uint16`` for the
Smallholder: `PAYLOAD_DTYPES`) holding the exact result for the side to move:

* the top bit, ``DRAW``: the position is a draw (the remoteness bits are 0);
* the next bit, ``WIN``: the side to move wins (neither bit: it loses);
* the low bits: the remoteness, plies to the end under perfect play.

`encode` and `decode` are the only code that knows this layout; `decode` returns the
solvers' array convention (values WIN/DRAW/LOSS, remoteness 0 for a draw), which
`solver.probe.outcomes` turns into `Outcome`s (remoteness None for a draw).
"""

from __future__ import annotations

import numpy as np

from tablebase.games.base import DRAW, LOSS, WIN

#: the payload type of each game's tables (numpy dtype strings, as stored with a table)
PAYLOAD_DTYPES = {"sparro": "u1", "smallholder": "u2"}


def layout(dtype: str | np.dtype) -> tuple[int, int, int]:
    """(draw flag, win flag, remoteness mask) of a payload type."""
    bits = 8 * np.dtype(dtype).itemsize
    return 1 << bits - 1, 1 << bits - 2, (1 << bits - 2) - 1


def encode(values: np.ndarray, remoteness: np.ndarray, dtype: str) -> np.ndarray:
    """The payload of each position (``remoteness`` of a draw is ignored); ValueError if
    a remoteness does not fit the type."""
    draw_flag, win_flag, mask = layout(dtype)
    values = np.asarray(values)
    draw = values == DRAW
    # in the remoteness's own integer type, not int64: a solve's tables hold tens of
    # millions of positions, and every temporary here is one array of them
    plies = np.where(draw, 0, np.asarray(remoteness))
    if len(plies) and (int(plies.max()) > mask or int(plies.min()) < 0):
        raise ValueError(f"remoteness {int(plies.max())} does not fit the payload ({mask} at most)")
    payload = plies.astype(dtype)
    del plies
    payload[values == WIN] |= win_flag
    payload[draw] |= draw_flag
    return payload


def decode(payload: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(values WIN/DRAW/LOSS as int8, remoteness as int32 with 0 for a draw) of payload entries."""
    payload = np.asarray(payload)
    draw_flag, win_flag, mask = layout(payload.dtype)
    draw = (payload & draw_flag) != 0
    values = np.where(draw, DRAW, np.where(payload & win_flag, WIN, LOSS)).astype(np.int8)
    remoteness = np.where(draw, 0, payload & mask).astype(np.int32)
    return values, remoteness
