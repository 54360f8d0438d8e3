"""metalforge's environment variables, read strictly: a value metalforge cannot use is an error that
names the variable and its accepted values, never silently ignored or a raw ValueError."""
from __future__ import annotations

import math
import os
from typing import Any, Callable

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
    return _number(name, default, int, lambda n: n >= minimum, f"an integer >= {minimum}")


def seconds(name: str, default: float) -> float:
    """A duration in seconds, 0 for none; unset or empty: `default`."""
    return _number(name, default, float, lambda n: 0 <= n < math.inf, "a number of seconds >= 0 (0: no limit)")


def _number(name: str, default, parse: Callable[[str], Any], valid: Callable[[Any], bool], expected: str):
    value = os.environ.get(name, "").strip()
    if not value:
        return default
    try:
        number = parse(value)
    except ValueError:
        number = None
    if number is None or not valid(number):
        raise EnvironmentVariableError(f"{name}={value!r}: use {expected}")
    return number
