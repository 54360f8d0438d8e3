"""Passes over the per-thread program (LIR), run in order by `codegen.pipeline` after lowering."""
