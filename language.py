"""`import metalforge.language as tl`: the Triton-named kernel language (defined in dsl/language.py)."""
from .dsl.language import *  # noqa: F401,F403
from .dsl.language import __all__  # noqa: F401
import types as _types

from .dsl.standard import (pair_uniform_to_normal, rand, rand4x, randint, randint4x, randn, randn4x,  # noqa: F401
                           reduce_or, swizzle2d, uint_to_uniform_float, xor_sum)  # @jit helpers (dsl/standard.py)

# `tl.random.*`, as Triton's module of that name
random = _types.SimpleNamespace(philox=philox, randint=randint, randint4x=randint4x, rand=rand, rand4x=rand4x,  # noqa: F405
                                randn=randn, randn4x=randn4x, uint_to_uniform_float=uint_to_uniform_float,
                                pair_uniform_to_normal=pair_uniform_to_normal)
