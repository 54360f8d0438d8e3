"""Tile-IR passes, run in order by `codegen.pipeline`; each is a small module with its own tests."""
