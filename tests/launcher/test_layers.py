"""Imports flow one way: the front end (dsl) builds IR, codegen compiles it, runtime runs kernel source
on a back end, and the launcher ties them together for a launch; no layer imports one above it.
Inside codegen, lowering has the same shape: the handler modules import the core, the driver imports
them all, and no module reaches back up (the circle an import inside a function would hide)."""
from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
MAY_IMPORT = {  # package: the metalforge packages and modules its code may import
    "dsl": {"dsl", "errors", "env"},
    "codegen": {"codegen", "dsl", "errors", "env"},
    "runtime": {"runtime", "errors", "env"},
    "launcher": {"launcher", "dsl", "codegen", "runtime", "errors", "env"},
    "nn": {"nn", "kernels", "errors", "env"},  # the drop-in layers run the library, nothing below it directly
}
LOWERING = ("codegen", "lowering")
DRIVER = "codegen.lowering.driver"
CORE = "codegen.lowering.core"


def imports(path: Path) -> list[tuple[str, bool]]:
    """The metalforge modules a file imports, dotted from the package root (`codegen.lowering.core`;
    for `from pkg import name`, `pkg.name`), each with whether the import is at the module's top level."""
    package = list(path.relative_to(ROOT).parent.parts)
    tree = ast.parse(path.read_text())
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.level:
            base = package[:len(package) - node.level + 1]
            modules = [base + node.module.split(".")] if node.module else [base + [a.name] for a in node.names]
        elif isinstance(node, ast.ImportFrom) and (node.module or "").startswith("metalforge."):
            modules = [node.module.split(".")[1:]]
        elif isinstance(node, ast.Import):
            modules = [a.name.split(".")[1:] for a in node.names if a.name.startswith("metalforge.")]
        else:
            continue
        found += [(".".join(parts), node in tree.body) for parts in modules]
    return found


def imported(path: Path) -> set[str]:
    """The top-level metalforge packages and modules a file imports (at any depth in it)."""
    return {module.split(".")[0] for module, _ in imports(path)}


def test_no_layer_imports_one_above_it():
    wrong = {f"{path.relative_to(ROOT)} imports {', '.join(sorted(imported(path) - allowed))}"
             for package, allowed in MAY_IMPORT.items() for path in (ROOT / package).rglob("*.py")
             if imported(path) - allowed}
    assert not wrong, sorted(wrong)


def lowering_imports() -> dict[str, list[tuple[str, bool]]]:
    """Each lowering module (dotted) -> the lowering modules it imports, and whether at top level."""
    prefix = ".".join(LOWERING) + "."
    return {".".join(LOWERING + (path.stem,)): [(m, top) for m, top in imports(path) if m.startswith(prefix)]
            for path in ROOT.joinpath(*LOWERING).glob("*.py") if path.stem != "__init__"}


def test_lowering_imports_point_down_and_sit_at_top_level():
    modules = lowering_imports()
    assert DRIVER in modules and CORE in modules
    problems = [f"{m} imports the driver" for m, found in modules.items()
                if m != DRIVER and any(i == DRIVER for i, _ in found)]
    problems += [f"the core imports {i}" for i, _ in modules[CORE]]
    problems += [f"{m} imports {i} inside a function" for m, found in modules.items() for i, top in found if not top]
    assert not problems, problems
