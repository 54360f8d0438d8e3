"""metalforge's environment variables, read strictly: a value metalforge cannot use is an error that
names the variable and its accepted values, never silently ignored or a raw ValueError."""
from __future__ import annotations

import math
import os

from .errors import MetalforgeError

_TRUE, _FALSE = ("1", "true", "yes", "on"), ("0", "false", "no", "off", "")


class EnvironmentVariableError(MetalforgeError, ValueError):
    """A METALFORGE_* environment variable holds a value metalforge cannot use."""


def flag(name: str, default: bool) -> bool:
    """A boolean variable: 1/true/yes/on or 0/false/no/off (any case); unset: `default`."""
    value = os.environ.get(name)
    if value is None:
        return default
    if value.strip().lower() in _TRUE:
        return True
    if value.strip().lower() in _FALSE:
        return False
    raise EnvironmentVariableError(f"{name}={value!r}: use 1/true/yes/on or 0/false/no/off")


def integer(name: str, default: int, minimum: int = 0) -> int:
    """An integer variable of at least `minimum`; unset or empty: `default`."""
    value = os.environ.get(name, "").strip()
    if not value:
        return default
    try:
        number = int(value)
    except ValueError:
        number = None
    if number is None or number < minimum:
        raise EnvironmentVariableError(f"{name}={value!r}: use an integer >= {minimum}")
    return number


def seconds(name: str, default: float) -> float:
    """A duration in seconds, 0 for none; unset or empty: `default`."""
    value = os.environ.get(name, "").strip()
    if not value:
        return default
    try:
        number = float(value)
    except ValueError:
        number = math.nan
    if not number >= 0 or math.isinf(number):
        raise EnvironmentVariableError(f"{name}={value!r}: use a number of seconds >= 0 (0: no limit)")
    return number
