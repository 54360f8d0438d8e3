"""Lowering: tile IR + layout plan -> per-thread statements (LIR). `core.py` holds the state and the
value representations, one module per kind of op imports it, and `driver.py` (the walk, `lower()`) sits
on top of them all."""
