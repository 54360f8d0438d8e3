"""metalforge.launcher: `@jit` kernels and their launch, the runtime side of the DSL.

It sits above the compiler and the back ends: the front end (`dsl`) builds IR, `codegen` compiles it,
`runtime` runs kernel source on a back end, and this package ties them together for a launch. Imports
flow one way: launcher -> dsl, codegen, runtime; none of those imports it.
"""
from .arguments import DTYPES, MX_DTYPES, Placeholder, cdiv, empty, full, zeros
from .function import JITFunction, Launch, jit, lacking

__all__ = ["DTYPES", "JITFunction", "Launch", "MX_DTYPES", "Placeholder", "cdiv", "empty", "full", "jit", "lacking",
           "zeros"]
