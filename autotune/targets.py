"""What `metalforge autotune TARGET...` tunes: the Autotuner objects of a module (a dotted import path
or a .py file), or one of them (`module:kernel`), or the kernel library's registered kernels.

A module declares how to tune a kernel on the Autotuner itself: `autotune(..., tune_args=fn,
shapes=[...], dtypes=[...])`, where `fn(shape, dtype)` returns `(grid, args)` for a launch of that
shape and dtype (`shape` is a tuple of ints from `--shapes`, `dtype` an `mx.Dtype`), and `shapes`/
`dtypes` are the standard ones used when the command line gives none.
"""
from __future__ import annotations

import importlib
import importlib.util
import sys
from pathlib import Path
from types import ModuleType

from ..errors import TuningTargetError
from .tuner import Autotuner


def _load_module(spec: str) -> ModuleType:
    path = Path(spec)
    if spec.endswith(".py") or path.is_file():
        if not path.is_file():
            raise TuningTargetError(f"no such file: {spec}")
        module_spec = importlib.util.spec_from_file_location(path.stem, path)
        module = importlib.util.module_from_spec(module_spec)
        sys.modules[path.stem] = module
        try:
            module_spec.loader.exec_module(module)
        except SyntaxError as e:
            raise TuningTargetError(_syntax_error(e)) from e
        return module
    try:
        return importlib.import_module(spec)
    except ModuleNotFoundError as e:
        raise TuningTargetError(f"cannot import module {spec!r}: {e}") from e
    except SyntaxError as e:
        raise TuningTargetError(_syntax_error(e)) from e


def _syntax_error(e: SyntaxError) -> str:
    return f"{e.filename}:{e.lineno}: {e.msg}: the tune target does not parse" + (
        f" (`{e.text.strip()}`)" if e.text else "")


def tuners_of(module: ModuleType) -> dict[str, Autotuner]:
    """The module's Autotuners by kernel name."""
    return {v.name: v for v in vars(module).values() if isinstance(v, Autotuner)}


def resolve(targets: list[str]) -> list[Autotuner]:
    """The Autotuners named by command-line targets; none: the kernel library's registered kernels."""
    if not targets:
        from .. import kernels

        return list(kernels.registered().values())
    found: list[Autotuner] = []
    for target in targets:
        # "module:kernel", but not the drive colon of a Windows path
        spec, _, kernel = target.rpartition(":") if ":" in target[2:] else (target, "", "")
        module = _load_module(spec)
        tuners = tuners_of(module)
        if not kernel:
            if not tuners:
                raise TuningTargetError(f"module {spec!r} defines no autotuned kernel (no Autotuner objects)")
            found.extend(tuners.values())
        elif kernel in tuners:
            found.append(tuners[kernel])
        elif isinstance(getattr(module, kernel, None), Autotuner):  # the variable's name
            found.append(getattr(module, kernel))
        else:
            raise TuningTargetError(f"unknown kernel {kernel!r} in {spec!r}; its autotuned kernels are: "
                                    f"{', '.join(sorted(tuners)) or 'none'}")
    return found
