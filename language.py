"""`import metalforge.language as tl`: the Triton-named kernel language (defined in dsl/language.py)."""
from .dsl.language import *  # noqa: F401,F403
from .dsl.language import __all__  # noqa: F401
from .dsl.standard import swizzle2d  # noqa: F401  (a @jit helper: index arithmetic)
