"""Tile-IR passes and analyses (folding, dead code, prefetch, contiguity, layout assignment), run in order
by `codegen.pipeline` before lowering; each is a small module with its own tests."""
