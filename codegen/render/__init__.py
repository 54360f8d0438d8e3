"""Renderers: spell a lowered kernel (LIR) in a target language through Jinja templates."""
