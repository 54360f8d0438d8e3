"""Imports flow one way: the front end (dsl) builds IR, codegen compiles it, runtime runs kernel source
on a back end, and the launcher ties them together for a launch; no layer imports one above it."""
from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
MAY_IMPORT = {  # package: the metalforge packages and modules its code may import
    "dsl": {"dsl", "errors", "env"},
    "codegen": {"codegen", "dsl", "errors", "env"},
    "runtime": {"runtime", "errors", "env"},
    "launcher": {"launcher", "dsl", "codegen", "runtime", "errors", "env"},
}


def imported(path: Path) -> set[str]:
    """The top-level metalforge packages and modules a file imports (at any depth in it)."""
    package = list(path.relative_to(ROOT).parent.parts)
    found = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.ImportFrom) and node.level:
            base = package[:len(package) - node.level + 1]
            parts = base + (node.module.split(".") if node.module else [])
            found |= {parts[0]} if parts else {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and (node.module or "").startswith("metalforge."):
            found.add(node.module.split(".")[1])
        elif isinstance(node, ast.Import):
            found |= {a.name.split(".")[1] for a in node.names if a.name.startswith("metalforge.")}
    return found


def test_no_layer_imports_one_above_it():
    wrong = {f"{path.relative_to(ROOT)} imports {', '.join(sorted(imported(path) - allowed))}"
             for package, allowed in MAY_IMPORT.items() for path in (ROOT / package).rglob("*.py")
             if imported(path) - allowed}
    assert not wrong, sorted(wrong)
