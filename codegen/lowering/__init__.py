"""Lowering: tile IR + layout plan -> per-thread statements (LIR), one module per kind of op."""
