"""Calls that metalforge.nn hands to MLX's built-in: counted by reason, each reason logged once
(a model calls its layers thousands of times), listed by `metalforge.nn.fallbacks()`."""
from __future__ import annotations

import logging

import mlx.core as mx

log = logging.getLogger("metalforge.nn")
FLOATS = (mx.float16, mx.bfloat16, mx.float32)
_COUNTS: dict[str, int] = {}


def fall_back(reason: str) -> None:
    """Count one call that runs MLX's built-in because of `reason` (logged at its first call)."""
    if reason not in _COUNTS:
        log.warning("metalforge.nn: %s; running MLX's built-in instead", reason)
        _COUNTS[reason] = 0
    _COUNTS[reason] += 1


def fallbacks() -> dict[str, int]:
    """Every reason a call fell back to MLX's built-in in this process, with how many calls did."""
    return dict(_COUNTS)


def clear_fallbacks() -> None:
    """Forget the reasons counted so far (the next call of each is logged again)."""
    _COUNTS.clear()


def dtype_problem(what: str, *dtypes: mx.Dtype) -> str | None:
    """Why the kernels cannot take arrays of `dtypes` (a dtype they lack, or dtypes that differ), or None."""
    dtypes = set(dtypes)
    bad = sorted(str(d) for d in dtypes if d not in FLOATS)
    if bad:
        return f"{what}: dtype {', '.join(bad)} (the kernels take float16, bfloat16, float32)"
    if len(dtypes) > 1:
        return f"{what}: mixed dtypes {', '.join(sorted(map(str, dtypes)))}"
    return None


def power_of_two(n: int) -> bool:
    return n > 0 and n & (n - 1) == 0
