"""Front end: a @jit function's Python AST -> a typed tile IR `Function` for one specialisation.

Kernels are parsed, not traced, so Python control flow means what it says: `if` on a constexpr
picks a branch at build time, `if`/`for`/`while` on runtime scalars become structured IR ops with
explicit loop-carried and yielded values, `tl.static_range` unrolls, and calls to other @jit
functions are inlined. Values are either IR `Value`s (runtime) or plain Python objects
(constexprs), and arithmetic on Python objects is folded here, as Triton does. Every mistake is
reported as a `KernelDefinitionError` pointing at the user's line with a fix.
"""
from __future__ import annotations

import ast
import builtins
import inspect
import operator
import textwrap
from dataclasses import dataclass, replace
from typing import Any, Callable, Iterator, Mapping, Sequence

from .. import env
from ..errors import KernelDefinitionError, MetalforgeError
from . import ir, language as tl, semantic
from .ir import Block, Function, Loc, Operation, PointerType, ScalarType, Type, Value, element_of, make_type, shape_of
from .semantic import TypeRuleError

Number = (bool, int, float)
# Triton makes a Python literal assigned in a kernel a tile (`acc = 0; acc.to(tl.int64)`, `acc.dtype`):
# these attributes of a number read it as one
_LITERAL_TILE_ATTRIBUTES = frozenset({"to", "cast", "dtype"})

_PY_BINOPS: dict[type, tuple[str, Callable[[Any, Any], Any]]] = {
    ast.Add: ("add", operator.add), ast.Sub: ("sub", operator.sub), ast.Mult: ("mul", operator.mul),
    ast.Div: ("truediv", operator.truediv), ast.FloorDiv: ("floordiv", operator.floordiv),
    ast.Mod: ("mod", operator.mod), ast.LShift: ("lshift", operator.lshift), ast.RShift: ("rshift", operator.rshift),
    ast.BitAnd: ("and", operator.and_), ast.BitOr: ("or", operator.or_), ast.BitXor: ("xor", operator.xor),
    ast.Pow: ("pow", operator.pow), ast.MatMult: ("matmul", operator.matmul),
}
_PY_CMPOPS: dict[type, tuple[str, Callable[[Any, Any], Any]]] = {
    ast.Lt: ("lt", operator.lt), ast.LtE: ("le", operator.le), ast.Gt: ("gt", operator.gt),
    ast.GtE: ("ge", operator.ge), ast.Eq: ("eq", operator.eq), ast.NotEq: ("ne", operator.ne),
    ast.Is: ("is", operator.is_), ast.IsNot: ("is not", operator.is_not),
    ast.In: ("in", lambda a, b: a in b), ast.NotIn: ("not in", lambda a, b: a not in b),
}
_PY_UNOPS = {ast.USub: ("neg", operator.neg), ast.Invert: ("invert", operator.invert),
             ast.Not: ("not", operator.not_), ast.UAdd: ("pos", operator.pos)}

# Constructs a kernel body may not contain, with the fix to suggest.
_UNSUPPORTED: dict[type, tuple[str, str]] = {
    ast.Try: ("try/except", "remove it; kernels cannot raise or catch exceptions"),
    ast.With: ("with", "remove it; kernels have no context managers"),
    ast.Lambda: ("lambda", "write the function as a separate @metalforge.jit function"),
    ast.ClassDef: ("class definitions", "define classes outside the kernel"),
    ast.FunctionDef: ("nested function definitions", "define it at module level with @metalforge.jit"),
    ast.Break: ("break", "turn the exit condition into a while loop condition or a mask"),
    ast.Continue: ("continue", "guard the rest of the loop body with an if, or use a mask"),
    ast.ListComp: ("list comprehensions", "write the loop with tl.static_range"),
    ast.SetComp: ("set comprehensions", "write the loop with tl.static_range"),
    ast.DictComp: ("dict comprehensions", "write the loop with tl.static_range"),
    ast.GeneratorExp: ("generator expressions", "write the loop with tl.static_range"),
    ast.Assert: ("assert", "use tl.static_assert for constexpr conditions"),
    ast.Raise: ("raise", "use tl.static_assert for constexpr conditions"),
    ast.Delete: ("del", "remove it; tiles are freed automatically"),
    ast.Global: ("global", "read module constants directly; kernels cannot assign globals"),
    ast.Nonlocal: ("nonlocal", "remove it; kernels cannot assign enclosing variables"),
    ast.Import: ("import", "import at module level"),
    ast.ImportFrom: ("import", "import at module level"),
    ast.Await: ("await", "remove it"),
    ast.Yield: ("yield", "store results with tl.store"),
    ast.NamedExpr: ("assignment expressions (:=)", "assign on a separate line"),
}


def _is_constexpr_annotation(annotation: Any) -> bool:
    if isinstance(annotation, str):  # `from __future__ import annotations` leaves the text
        return annotation.split(".")[-1] == "constexpr"
    return annotation is tl.constexpr


def _walk_statements(stmts: list[ast.stmt]) -> Iterator[ast.AST]:
    """Nodes of a body, not descending into nested definitions (they are rejected on their own)."""
    todo: list[ast.AST] = list(stmts)
    while todo:
        node = todo.pop()
        yield node
        if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)):
            todo.extend(ast.iter_child_nodes(node))


@dataclass
class _Source:
    """A function's parsed source with absolute line numbers, for locations and error messages."""

    file: str
    first_line: int
    lines: list[str]
    tree: ast.FunctionDef

    def line(self, lineno: int) -> str:
        i = lineno - self.first_line
        return self.lines[i].strip() if 0 <= i < len(self.lines) else ""


class JITFunction:
    """A @jit function: parsed once, built into IR per specialisation, and inlined when called from
    another kernel."""

    def __init__(self, fn: Callable[..., Any], debug: bool | None = None) -> None:
        self.fn = fn
        # device asserts checked (`@jit(debug=True)`, else METALFORGE_DEBUG when the kernel is defined)
        self.debug = env.flag("METALFORGE_DEBUG", False) if debug is None else bool(debug)
        self.__name__ = fn.__name__
        self.__doc__ = fn.__doc__
        self.__wrapped__ = fn
        self.signature = inspect.signature(fn)
        self.library = False  # one of metalforge's `tl` helpers (dsl/standard.py): errors point at its caller
        self.constexpr_params = {p.name for p in self.signature.parameters.values()
                                 if _is_constexpr_annotation(p.annotation)}
        self._source: _Source | None = None

    @property
    def source(self) -> _Source:
        if self._source is None:
            try:
                lines, first = inspect.getsourcelines(self.fn)
            except (OSError, TypeError) as e:
                raise MetalforgeError(f"cannot read the source of kernel `{self.__name__}` ({e}): kernels are "
                                      "compiled from their source text, so define them in a .py file (not with "
                                      "exec or in an interactive prompt without source)") from None
            module = ast.parse(textwrap.dedent("".join(lines)))
            ast.increment_lineno(module, first - 1)
            tree = module.body[0]
            assert isinstance(tree, ast.FunctionDef)
            self._source = _Source(inspect.getsourcefile(self.fn) or "<unknown>", first, lines, tree)
        return self._source

    def dependency_text(self) -> str:
        """The text a kernel's tuning depends on: its source, the source of every @jit function it
        calls (transitively) and the value of every global constant it reads, so that changing a
        helper or a constant makes configs tuned for the old code stale."""
        parts: list[str] = []
        seen: set[int] = set()

        def visit(fn: JITFunction) -> None:
            if id(fn) in seen:
                return
            seen.add(id(fn))
            parts.append("".join(fn.source.lines) + ("\0debug" if fn.debug else ""))
            free = dict(zip(fn.fn.__code__.co_freevars, (c.cell_contents for c in fn.fn.__closure__ or ())))
            for node in ast.walk(fn.source.tree):
                value = _referenced(node, free, fn.fn.__globals__)
                if isinstance(value, JITFunction):
                    visit(value)
                elif isinstance(value, tl.constexpr) or isinstance(value, (bool, int, float, str, tuple)):
                    parts.append(f"{ast.unparse(node)} = {value!r}")

        visit(self)
        return "\0".join(parts)

    def build_ir(self, arg_types: Mapping[str, Type], constexprs: Mapping[str, Any] | None = None) -> Function:
        """The kernel's IR for runtime arguments of `arg_types` (pointer or scalar types) and the
        given constexpr values (defaults fill in the rest)."""
        return _Builder(self).build_kernel(dict(arg_types), dict(constexprs or {}))

    def __repr__(self) -> str:
        return f"<metalforge.jit {self.__name__}>"


_UNRESOLVED = object()
# tl.static_range copies its body once per iteration; beyond this many the generated kernel takes
# minutes to compile (20000 ended in a RecursionError after five), where a loop compiles at once.
MAX_STATIC_UNROLL = 4096


def _referenced(node: ast.AST, free: Mapping[str, Any], module_globals: Mapping[str, Any]) -> Any:
    """What a name (`helper`) or a module attribute (`mod.helper`) in a kernel's source refers to,
    looked up as the front end does (closure, then globals); _UNRESOLVED for anything else."""
    if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load):
        for space in (free, module_globals):
            if node.id in space:
                return space[node.id]
    elif isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name):
        base = _referenced(node.value, free, module_globals)
        if inspect.ismodule(base):
            return getattr(base, node.attr, _UNRESOLVED)
    return _UNRESOLVED


def jit(fn: Callable[..., Any]) -> JITFunction:
    """Mark a Python function as a metalforge kernel (or a helper inlined into kernels)."""
    return JITFunction(fn)


def library_helper(fn: Callable[..., Any]) -> JITFunction:
    """A `tl` function written as a @jit helper (dsl/standard.py): a mistake found while inlining it is
    reported at the user's call, where the fix is."""
    helper = JITFunction(fn)
    helper.library = True
    return helper


class Shape(tuple):
    """A tile's `.shape`, as Triton's (a `tl.tuple`): equal to a list or tuple of the same sizes
    (`tl.static_assert(z.shape == [2])`), and extended by either (`x.shape[:-1] + [2 * n]`)."""

    def __eq__(self, other: object) -> bool:
        return isinstance(other, (tuple, list)) and tuple(self) == tuple(other)

    def __ne__(self, other: object) -> bool:
        return not self == other

    __hash__ = tuple.__hash__

    def __add__(self, other: Sequence[int]) -> Shape:  # type: ignore[override]
        return Shape(tuple(self) + tuple(other))

    def __radd__(self, other: Sequence[int]) -> Shape:
        return Shape(tuple(other) + tuple(self))

    def __getitem__(self, index: Any) -> Any:
        item = tuple.__getitem__(self, index)
        return Shape(item) if isinstance(index, slice) else item


@dataclass(frozen=True)
class BlockPointer:
    """tl.make_block_ptr's result, a front-end value: loads and stores through it become pointer tiles
    (base + sum of (offset + arange) * stride per axis) and masks of the checked axes. Only `offsets`
    change (tl.advance), so a loop or branch carries those, as int32 scalars."""

    base: Value  # a scalar pointer
    shape: tuple[Any, ...]  # int scalars or Python ints
    strides: tuple[Any, ...]
    offsets: tuple[Value, ...]
    block_shape: tuple[int, ...]
    order: tuple[int, ...]

    @property
    def dtype(self) -> PointerType:
        """The base's pointer type (`block_ptr.dtype.element_ty` is the element type)."""
        return element_of(self.base.type)

    def same_tensor(self, other: Any) -> bool:
        """Whether `other` is a block pointer into the same tensor view (only its offsets may differ)."""
        same = lambda a, b: a is b or not isinstance(a, Value) and not isinstance(b, Value) and a == b  # noqa: E731
        return (isinstance(other, BlockPointer) and other.base is self.base and other.block_shape == self.block_shape
                and other.order == self.order
                and all(same(a, b) for a, b in zip(other.shape + other.strides, self.shape + self.strides)))


@dataclass(frozen=True)
class TensorDescriptor:
    """tl.make_tensor_descriptor's result, a front-end value: a block pointer at offsets 0 (the tensor
    view and the block shape its loads and stores move) and the padding. A load or store at `offsets`
    is that block pointer's at those offsets with every axis checked: outside the tensor, loads give
    the padding and stores do nothing (Triton's rule, which TMA applies in hardware)."""

    block: BlockPointer
    padding: str


def _to_stub(dtype, fp_downcast_rounding=None, bitcast=False): """Signature of tensor.to."""


_TO_SIGNATURE = inspect.signature(_to_stub)


@dataclass
class _Frame:
    """The function being built (the kernel, or an inlined helper): its source and variables."""

    fn: JITFunction
    src: _Source
    scope: dict[str, Any]


class _Builder:
    """Walks the AST of one kernel specialisation and emits IR."""

    def __init__(self, kernel: JITFunction) -> None:
        self.kernel = kernel
        self.frame = _Frame(kernel, kernel.source, {})
        self.blocks: list[Block] = []
        self.node: ast.AST = kernel.source.tree
        self._frames: list[_Frame] = []  # callers of the helper being inlined, to reject recursion
        self.returned = False  # the statements being built ended in a kernel's `return` (the rest is dead)

    # --- errors and locations -----------------------------------------------------------------
    def error(self, message: str, hint: str, node: ast.AST | None = None) -> KernelDefinitionError:
        node = node or self.node
        line = getattr(node, "lineno", self.frame.src.first_line)
        if self.frame.fn is not self.kernel and not self.frame.fn.library:
            message += f" (in @jit helper `{self.frame.fn.__name__}`, inlined)"
        return KernelDefinitionError(message, kernel=self.kernel.__name__, file=self.frame.src.file, line=line,
                                     source=self.frame.src.line(line), hint=hint)

    def loc(self) -> Loc:
        line = getattr(self.node, "lineno", self.frame.src.first_line)
        return Loc(self.frame.src.file, line, self.frame.src.line(line))

    # --- emission helpers ---------------------------------------------------------------------
    def emit(self, opcode: str, operands: Sequence[Value], result_types: Sequence[Type] = (),
             attrs: dict[str, Any] | None = None, regions: list[Block] | None = None) -> Operation:
        op = Operation(opcode, list(operands), [Value(t) for t in result_types], attrs or {}, self.loc(),
                       regions or [])
        self.blocks[-1].ops.append(op)
        return op

    def emit1(self, opcode: str, operands: Sequence[Value], result_type: Type, **attrs: Any) -> Value:
        return self.emit(opcode, operands, [result_type], attrs).result

    def constant(self, value: bool | int | float, t: ScalarType) -> Value:
        return self.emit1("constant", [], t, value=semantic.constant_value(value, t))

    def to_value(self, x: Any, like: ScalarType | None = None) -> Value:
        """A runtime value for x: Python numbers become constants (in `like` when their kind allows)."""
        if isinstance(x, Value):
            return x
        if not isinstance(x, Number):
            raise TypeRuleError(f"expected a number or a tile, got {x!r}", "pass a tile or a Python number")
        t = semantic.python_scalar_type(x)
        if like is not None and t.kind <= like.kind:
            t = like
        return self.constant(x, semantic.check_metal_type(t))

    def convert(self, v: Value, element: ir.Element) -> Value:
        if element_of(v.type) == element:
            return v
        return self.emit1("cast", [v], make_type(element, shape_of(v.type)))

    def broadcast(self, v: Value, shape: tuple[int, ...]) -> Value:
        have = shape_of(v.type)
        if have == shape:
            return v
        if semantic.broadcast_shapes(have, shape) != shape:
            raise TypeRuleError(f"cannot broadcast shape {list(have)} to {list(shape)}",
                                "make the shapes agree, e.g. with x[:, None] or x[None, :]")
        if not have:
            return self.emit1("splat", [v], make_type(element_of(v.type), shape))
        if len(have) < len(shape):
            have = (1,) * (len(shape) - len(have)) + have
            v = self.emit1("reshape", [v], make_type(element_of(v.type), have))
        return self.emit1("broadcast", [v], make_type(element_of(v.type), shape))

    # --- kernel entry -------------------------------------------------------------------------
    def build_kernel(self, arg_types: dict[str, Type], constexprs: dict[str, Any]) -> Function:
        fn, tree = self.kernel, self.kernel.source.tree
        params = fn.signature.parameters
        for name in [*arg_types, *constexprs]:
            if name not in params:
                raise self.error(f"`{name}` is not a parameter of the kernel",
                                 f"parameters are: {', '.join(params)}")
        args: list[Value] = []
        for p in params.values():
            if p.name in fn.constexpr_params:
                value = constexprs.get(p.name, p.default)
                if value is inspect.Parameter.empty:
                    raise self.error(f"constexpr parameter `{p.name}` has no value",
                                     f"pass {p.name}=... when launching the kernel")
                self.frame.scope[p.name] = value.value if isinstance(value, tl.constexpr) else value
            elif p.name in arg_types:
                if p.name in ir.GENERATED_NAMES or p.name.startswith(ir.GENERATED_PREFIX):
                    raise self.error(f"parameter `{p.name}` is a name the generated Metal and CUDA code uses (a "
                                     f"keyword, a thread-position builtin or metalforge's `{ir.GENERATED_PREFIX}`)",
                                     f"rename it, e.g. `{p.name.removeprefix(ir.GENERATED_PREFIX)}_`")
                t = arg_types[p.name]
                try:
                    semantic.check_metal_type(element_of(t).element if isinstance(element_of(t), PointerType)
                                              else element_of(t))
                except TypeRuleError as e:
                    raise self.error(f"argument `{p.name}`: {e}", e.hint) from None
                args.append(Value(t, p.name))
                self.frame.scope[p.name] = args[-1]
            else:
                raise self.error(f"no type given for runtime argument `{p.name}`",
                                 f"pass an array or a scalar for `{p.name}` when launching the kernel")
        body = Block()
        self.blocks.append(body)
        self.run_body(tree, allow_return_value=False)
        self.blocks.pop()
        return Function(fn.__name__, args, {k: self.frame.scope[k] for k in fn.constexpr_params}, body,
                        fn.source.file)

    def run_body(self, tree: ast.FunctionDef, allow_return_value: bool) -> Any:
        """Build a function body. A kernel may `return` anywhere (the program ends there, as in Triton:
        `if pid >= n: return`); a helper only as its last statement (it is inlined)."""
        stmts = tree.body
        for sub in _walk_statements(stmts):
            if isinstance(sub, ast.Return) and sub is not stmts[-1] and (allow_return_value or sub.value):
                what = "a @jit helper" if allow_return_value else "a kernel (which returns nothing)"
                raise self.error(f"`return` with a value is only supported as the last statement of {what}",
                                 "assign the result to a variable (e.g. with tl.where) and return it at the end",
                                 sub)
        last = stmts[-1] if isinstance(stmts[-1], ast.Return) else None
        for stmt in stmts[:-1] if last else stmts:
            self.stmt(stmt)
        if last is None or last.value is None:
            return None
        if not allow_return_value:
            raise self.error("a kernel cannot return a value", "write results to an output with tl.store", last)
        self.node = last
        return self.expr(last.value)

    # --- statements ---------------------------------------------------------------------------
    def stmt(self, node: ast.stmt) -> None:
        self.node = node
        unsupported = _UNSUPPORTED.get(type(node))
        if unsupported:
            raise self.error(f"metalforge kernels do not support {unsupported[0]}", unsupported[1])
        handler = getattr(self, f"stmt_{type(node).__name__}", None)
        if handler is None:
            raise self.error(f"the statement `{type(node).__name__}` is not supported in metalforge kernels",
                             "rewrite it with assignments, if/for/while and tl functions")
        try:
            handler(node)
        except TypeRuleError as e:
            raise self.error(str(e), e.hint, node) from None

    def stmts(self, body: list[ast.stmt]) -> None:
        for s in body:
            self.stmt(s)
            if self.returned:
                return  # the rest is unreachable

    def stmt_Expr(self, node: ast.Expr) -> None:
        self.expr(node.value)

    def stmt_Pass(self, node: ast.Pass) -> None:
        pass

    def stmt_Return(self, node: ast.Return) -> None:
        """A kernel's early `return` (run_body rejects every other non-final return)."""
        self.emit("return", [])
        self.returned = True

    def stmt_Assign(self, node: ast.Assign) -> None:
        value = self.expr(node.value)
        for target in node.targets:
            self.assign(target, value)

    def stmt_AnnAssign(self, node: ast.AnnAssign) -> None:
        if node.value is None:
            raise self.error("a bare annotation declares nothing", "assign a value: `x: tl.constexpr = 4`")
        self.assign(node.target, self.expr(node.value))

    def stmt_AugAssign(self, node: ast.AugAssign) -> None:
        if not isinstance(node.target, ast.Name):
            raise self.error("only plain variables can be updated in place",
                             "tiles are immutable: compute a new tile and store it with tl.store")
        name, fold = _PY_BINOPS[type(node.op)]
        self.assign(node.target, self.binary(name, fold, self.lookup(node.target.id), self.expr(node.value)))

    def assign(self, target: ast.expr, value: Any) -> None:
        if isinstance(target, ast.Name):
            if isinstance(value, Value) and value.name is None:
                value.name = target.id
            self.frame.scope[target.id] = value
        elif isinstance(target, (ast.Tuple, ast.List)):
            if isinstance(value, Value) or not isinstance(value, (tuple, list)) or len(value) != len(target.elts):
                raise self.error("cannot unpack this value into "
                                 f"{len(target.elts)} names", "unpack only tuples of matching length", target)
            for t, v in zip(target.elts, value):
                self.assign(t, v)
        else:
            raise self.error("only names and tuples of names can be assigned to",
                             "tiles are immutable: build a new tile (e.g. with tl.where) or write with tl.store",
                             target)

    def stmt_If(self, node: ast.If) -> None:
        cond = self.expr(node.test)
        if not isinstance(cond, Value):
            self.stmts(node.body if cond else node.orelse)  # constexpr: only the taken branch exists
            return
        self.node = node
        cond = self.scalar_condition(cond, "if")
        before = self.frame.scope
        then_scope, then_block = self.region(node.body, dict(before), Block())
        then_returned = self.returned
        else_scope, else_block = self.region(node.orelse, dict(before), Block())
        else_returned, self.returned = self.returned, then_returned and self.returned
        self.node = node
        if then_returned != else_returned:  # after the if, variables are the other branch's
            live, dead_block = (else_scope, then_block) if then_returned else (then_scope, else_block)
            stand_ins = {n: self.in_block(dead_block, lambda v=v, n=n: self.unreachable_value(n, v, before.get(n)))
                         for n, v in live.items() if isinstance(v, Value) and v is not before.get(n)}
            if then_returned:
                then_scope = {**live, **stand_ins}
            else:
                else_scope = {**live, **stand_ins}
        names = [n for n in dict.fromkeys([*then_scope, *else_scope])
                 if n in then_scope and n in else_scope
                 and not (then_scope[n] is before.get(n) and else_scope[n] is before.get(n))]
        self.node = node
        merged: list[tuple[str, Value, Value]] = []  # (name, then value, else value) per carried value
        templates: dict[str, Any] = {}
        for n in names:
            t, e = then_scope[n], else_scope[n]
            if isinstance(t, BlockPointer) or isinstance(e, BlockPointer):
                if not (isinstance(t, BlockPointer) and t.same_tensor(e)):
                    raise self.error(f"block pointer `{n}` points into different tensors after the branches",
                                     "make it once before the if and move it with tl.advance in the branches")
                templates[n] = t
                merged.extend(self.unify(ln, a, then_block, b, else_block, "if-branch", "else-branch")
                              for (ln, a), (_, b) in zip(self.leaves(n, t), self.leaves(n, e)))
                continue
            if not isinstance(t, Value) and not isinstance(e, Value) and type(t) is type(e) and t == e:
                before[n] = t
                continue
            templates[n] = t
            merged.append(self.unify(n, t, then_block, e, else_block, "if-branch", "else-branch"))
        for block, vals in ((then_block, [m[1] for m in merged]), (else_block, [m[2] for m in merged])):
            block.ops.append(Operation("yield", vals, [], {}, self.loc()))
        op = self.emit("if", [cond], [m[1].type for m in merged], regions=[then_block, else_block])
        for (n, _, _), r in zip(merged, op.results):
            r.name = n
        before.update(self.unflatten(list(templates), list(templates.values()), op.results))

    def unreachable_value(self, name: str, live: Value, before: Any) -> Value:
        """What a branch that returned yields for a variable the other branch set (never read)."""
        if isinstance(before, Value) and before.type == live.type:
            return before
        e = element_of(live.type)
        if isinstance(e, PointerType):
            raise self.error(f"pointer `{name}` is set in only one branch of an if whose other branch returns",
                             f"assign `{name}` before the if")
        return self.emit1("full" if shape_of(live.type) else "constant", [], live.type,
                          value=0.0 if e.is_float else 0)

    def unify(self, name: str, a: Any, a_block: Block, b: Any, b_block: Block, a_what: str, b_what: str
              ) -> tuple[str, Value, Value]:
        """Runtime values of one variable on two paths, constants materialised in their own block."""
        like_a = element_of(b.type) if isinstance(b, Value) else None
        like_b = element_of(a.type) if isinstance(a, Value) else None
        av = self.in_block(a_block, lambda: self.to_value(a, like_a))
        bv = self.in_block(b_block, lambda: self.to_value(b, like_b))
        if av.type != bv.type:
            raise self.error(f"variable `{name}` is {av.type} in the {a_what} but {bv.type} in the {b_what}",
                             "give it the same type and shape on both paths, e.g. with .to(...) or tl.zeros")
        return name, av, bv

    def leaves(self, name: str, x: Any) -> list[tuple[str, Value]]:
        """The runtime values a loop or branch carries for variable `name`, named: a block pointer's
        offsets (the rest of it cannot change), else the value itself."""
        if isinstance(x, BlockPointer):
            return [(f"{name}_offset{i}", o) for i, o in enumerate(x.offsets)]
        return [(name, self.to_value(x))]

    @staticmethod
    def unflatten(names: list[str], templates: list[Any], values: Sequence[Value]) -> dict[str, Any]:
        """The variables `names` from carried `values` (leaves' order), shaped like `templates`."""
        out, at = {}, 0
        for n, t in zip(names, templates):
            count = len(t.offsets) if isinstance(t, BlockPointer) else 1
            out[n] = replace(t, offsets=tuple(values[at:at + count])) if isinstance(t, BlockPointer) else values[at]
            at += count
        return out

    def in_block(self, block: Block, build: Callable[[], Value]) -> Value:
        self.blocks.append(block)
        try:
            return build()
        finally:
            self.blocks.pop()

    def region(self, body: list[ast.stmt], scope: dict[str, Any], block: Block) -> tuple[dict[str, Any], Block]:
        """Build statements into `block` with their own copy of the variables; afterwards
        `self.returned` says whether every path through them returned."""
        outer = self.frame.scope
        self.frame.scope = scope
        self.returned = False
        self.blocks.append(block)
        try:
            self.stmts(body)
        finally:
            self.blocks.pop()
            self.frame.scope = outer
        return scope, block

    def scalar_condition(self, cond: Value, what: str) -> Value:
        if shape_of(cond.type):
            raise self.error(f"`{what}` needs a scalar condition, got a tile of type {cond.type}",
                             "use tl.where(cond, a, b) for elementwise choices, or reduce the tile first")
        return self.convert(cond, ir.int1)

    def carried(self, body: list[ast.stmt], exclude: set[str]) -> list[str]:
        """Variables that exist before a loop and are reassigned in it: the loop-carried values."""
        assigned = [n.id for s in body for n in ast.walk(s) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)]
        return [n for n in dict.fromkeys(assigned)
                if n not in exclude and isinstance(self.frame.scope.get(n), (Value, BlockPointer, *Number))]

    def close_loop(self, scope: dict[str, Any], block: Block, args: list[Value], names: list[str],
                   templates: list[Any]) -> None:
        """End a loop body with a `yield` of each carried variable, checking its type did not change (a
        block pointer may only have moved)."""
        ends: list[tuple[str, Any]] = []
        for n, t in zip(names, templates):
            x = scope[n]
            if isinstance(t, BlockPointer) or isinstance(x, BlockPointer):
                if not (isinstance(t, BlockPointer) and t.same_tensor(x)):
                    raise self.error(f"block pointer `{n}` points into another tensor after an iteration",
                                     "make it once before the loop and move it with tl.advance in the loop")
                ends.extend(self.leaves(n, x))
            else:
                ends.append((n, x))
        values = []
        for (n, x), arg in zip(ends, args):
            v = self.in_block(block, lambda: self.to_value(x, element_of(arg.type)))
            if v.type != arg.type:
                raise self.error(f"loop-carried variable `{n}` is {arg.type} before the loop but {v.type} "
                                 "after an iteration", "keep its type and shape fixed, e.g. initialise it with "
                                 "tl.zeros([...], dtype) of the final shape, or convert with .to(...)")
            values.append(v)
        block.ops.append(Operation("yield", values, [], {}, self.loc()))

    def stmt_For(self, node: ast.For) -> None:
        if node.orelse:
            raise self.error("for/else is not supported", "move the else body after the loop")
        if not isinstance(node.target, ast.Name):
            raise self.error("the loop variable must be a single name", "write `for i in range(...)`")
        it = node.iter
        fn = self.expr(it.func) if isinstance(it, ast.Call) else None
        if fn not in (builtins.range, tl.range, tl.static_range):
            raise self.error("kernels can only loop over range(...), tl.range(...) or tl.static_range(...)",
                             "rewrite the loop over an index range")
        args, kwargs = self.call_args(it)
        if fn is builtins.range and kwargs or not 1 <= len(args) <= 3:
            raise self.error("range takes 1 to 3 positional bounds", "write range(stop) or range(start, stop, step)")
        if fn is builtins.range:
            lo, hi, step = (0, args[0], 1) if len(args) == 1 else (args[0], args[1], args[2] if len(args) == 3 else 1)
        else:  # tl.range / tl.static_range(arg1, arg2=None, step=None, <tl.range's hints>)
            bound = self.bind(fn.signature, f"tl.{fn.name}", args, kwargs)
            arg1, arg2, step = bound.pop("arg1"), bound.pop("arg2"), bound.pop("step")
            lo, hi = (0, arg1) if arg2 is None else (arg1, arg2)
            step = 1 if step is None else step
            kwargs = {k: v for k, v in bound.items() if v != fn.signature.parameters[k].default}
        if fn is tl.static_range:
            if any(isinstance(a, Value) for a in (lo, hi, step)):
                raise self.error("tl.static_range bounds must be constexpr", "use tl.range for runtime bounds")
            unrolled = builtins.range(lo, hi, step)
            if len(unrolled) > MAX_STATIC_UNROLL:
                raise self.error(f"tl.static_range unrolls {len(unrolled)} iterations, more than {MAX_STATIC_UNROLL} "
                                 "(the kernel would take minutes to compile)", "use tl.range, which stays a loop")
            for i in unrolled:
                self.frame.scope[node.target.id] = i
                self.stmts(node.body)
                if self.returned:
                    break
            return
        self.node = node
        if step == 0:
            raise self.error("range step must not be zero", "use a non-zero step")
        bounds = [self.to_value(b) for b in (lo, hi, step)]
        for b in bounds:
            if shape_of(b.type) or not element_of(b.type).is_int:
                raise self.error(f"loop bounds must be integer scalars, got {b.type}", "pass integer bounds")
        iv_type = bounds[0].type
        for b in bounds[1:]:
            iv_type = semantic.integer_promote(iv_type, b.type)
        bounds = [self.convert(b, iv_type) for b in bounds]
        names = self.carried(node.body, {node.target.id})
        templates = [self.frame.scope[n] for n in names]
        carried = [leaf for n, t in zip(names, templates) for leaf in self.leaves(n, t)]
        body = Block([Value(iv_type, node.target.id)] + [Value(v.type, n) for n, v in carried])
        scope = {**self.frame.scope, node.target.id: body.args[0], **self.unflatten(names, templates, body.args[1:])}
        self.region(node.body, scope, body)
        self.returned = False  # the loop may run no iteration
        self.node = node
        self.close_loop(scope, body, body.args[1:], names, templates)
        op = self.emit("for", [*bounds, *(v for _, v in carried)], [v.type for _, v in carried], attrs=kwargs,
                       regions=[body])
        for (n, _), r in zip(carried, op.results):
            r.name = n
        self.frame.scope.update(self.unflatten(names, templates, op.results))

    def stmt_While(self, node: ast.While) -> None:
        if node.orelse:
            raise self.error("while/else is not supported", "move the else body after the loop")
        names = self.carried(node.body, set())
        templates = [self.frame.scope[n] for n in names]
        carried = [leaf for n, t in zip(names, templates) for leaf in self.leaves(n, t)]
        inits = [v for _, v in carried]
        before = Block([Value(v.type, n) for n, v in carried])
        after = Block([Value(v.type, n) for n, v in carried])
        outer = self.frame.scope
        self.frame.scope = {**outer, **self.unflatten(names, templates, before.args)}
        self.blocks.append(before)
        try:
            cond = self.expr(node.test)
            if not isinstance(cond, Value):
                raise self.error("a while loop needs a runtime condition",
                                 "use tl.static_range for loops with a constexpr trip count", node.test)
            self.node = node
            cond = self.scalar_condition(cond, "while")
            self.emit("condition", [cond, *before.args])
        finally:
            self.blocks.pop()
            self.frame.scope = outer
        scope, _ = self.region(node.body, {**outer, **self.unflatten(names, templates, after.args)}, after)
        self.returned = False  # the loop may run no iteration
        self.node = node
        self.close_loop(scope, after, after.args, names, templates)
        op = self.emit("while", inits, [v.type for v in inits], regions=[before, after])
        for (n, _), r in zip(carried, op.results):
            r.name = n
        outer.update(self.unflatten(names, templates, op.results))

    # --- expressions --------------------------------------------------------------------------
    def expr(self, node: ast.expr) -> Any:
        outer, self.node = self.node, node
        try:
            unsupported = _UNSUPPORTED.get(type(node))
            if unsupported:
                raise self.error(f"metalforge kernels do not support {unsupported[0]}", unsupported[1])
            handler = getattr(self, f"expr_{type(node).__name__}", None)
            if handler is None:
                raise self.error(f"the expression `{type(node).__name__}` is not supported in metalforge kernels",
                                 "rewrite it with operators and tl functions")
            return handler(node)
        except TypeRuleError as e:
            raise self.error(str(e), e.hint) from None
        finally:
            self.node = outer

    def fold(self, fn: Callable[..., Any], *args: Any) -> Any:
        """Evaluate Python (constexpr) code at build time, reporting its exceptions at the user's line."""
        try:
            result = fn(*args)
        except (ArithmeticError, TypeError, ValueError, IndexError, KeyError, AttributeError) as e:
            raise self.error(f"evaluating a constexpr expression failed: {type(e).__name__}: {e}",
                             "check the constexpr values passed to the kernel") from None
        return result.value if isinstance(result, tl.constexpr) else result

    def expr_Constant(self, node: ast.Constant) -> Any:
        return node.value

    def lookup(self, name: str) -> Any:
        frame = self.frame
        if name in frame.scope:
            return frame.scope[name]
        fn = frame.fn.fn
        free = dict(zip(fn.__code__.co_freevars, (c.cell_contents for c in fn.__closure__ or ())))
        for space in (free, fn.__globals__, vars(builtins)):
            if name in space:
                v = space[name]
                return v.value if isinstance(v, tl.constexpr) else v
        raise self.error(f"name `{name}` is not defined", "define it before use; variables assigned only "
                         "inside a loop or one branch of a runtime if are not visible after it")

    def expr_Name(self, node: ast.Name) -> Any:
        return self.lookup(node.id)

    def expr_Tuple(self, node: ast.Tuple) -> tuple[Any, ...]:
        return tuple(self.expr(e) for e in node.elts)

    def expr_List(self, node: ast.List) -> list[Any]:
        return [self.expr(e) for e in node.elts]

    def expr_JoinedStr(self, node: ast.JoinedStr) -> str:
        parts = []
        for v in node.values:
            if isinstance(v, ast.FormattedValue):
                x = self.expr(v.value)
                if isinstance(x, Value):
                    raise self.error("f-strings can only format constexpr values", "use tl.device_print for tiles")
                spec = self.expr(v.format_spec) if v.format_spec else ""
                x = {115: str, 114: repr, 97: ascii}.get(v.conversion, lambda y: y)(x)
                parts.append(self.fold(format, x, spec))
            else:
                parts.append(self.expr(v))
        return "".join(parts)

    def expr_Slice(self, node: ast.Slice) -> slice:
        return slice(*(self.expr(p) if p else None for p in (node.lower, node.upper, node.step)))

    def expr_Attribute(self, node: ast.Attribute) -> Any:
        base = self.expr(node.value)
        if isinstance(base, Number) and node.attr in _LITERAL_TILE_ATTRIBUTES:
            base = self.to_value(base)
        if not isinstance(base, Value):
            return self.constexpr_attribute(base, node.attr)
        if node.attr == "T":  # Triton's compiler: permute (1, 0), 2-D tiles only
            if len(shape_of(base.type)) != 2:
                raise self.error(f".T transposes 2-D tiles, got {base.type}", "use tl.trans(x) (it swaps the last two "
                                 "axes) or tl.permute(x, dims)")
            return self.permute(base, (1, 0))
        if node.attr == "dtype":
            return element_of(base.type)
        if node.attr == "shape":
            return Shape(shape_of(base.type))
        if node.attr == "numel":
            return base.type.numel if isinstance(base.type, ir.BlockType) else 1
        raise self.error(f"tiles have no attribute `{node.attr}`", "tiles support .to(), .T, .dtype, .shape and "
                         "the tl functions as methods (e.g. x.sum(0))")

    def constexpr_attribute(self, base: Any, name: str) -> Any:
        """`base.name` of a Python object (a module, `tl`, a constexpr); a `tl` name Triton has and
        metalforge not yet is refused by name."""
        if getattr(base, "BUILTINS", None) is tl.BUILTINS and name in tl.NOT_YET_SUPPORTED:
            raise self.error(f"Triton's tl.{name} is not supported by metalforge yet", tl.NOT_YET_SUPPORTED[name])
        return self.fold(getattr, base, name)

    def expr_Subscript(self, node: ast.Subscript) -> Any:
        base, index = self.expr(node.value), self.expr(node.slice)
        if not isinstance(base, Value):
            return self.fold(operator.getitem, base, index)
        items = index if isinstance(index, tuple) else (index,)
        if any(not (i is None or i == slice(None)) for i in items):
            raise self.error("tiles can only be indexed with `:` and `None` (to add axes)",
                             "select elements with masks and tl.where, or load them through pointers")
        for axis, i in enumerate(items):  # as Triton: `None` adds an axis there, `:` keeps one (or nothing)
            if i is None:
                base = self.expand_dims(base, axis)
        return base

    def expr_BinOp(self, node: ast.BinOp) -> Any:
        name, fold = _PY_BINOPS[type(node.op)]
        return self.binary(name, fold, self.expr(node.left), self.expr(node.right))

    def binary(self, name: str, fold: Callable[[Any, Any], Any], a: Any, b: Any, **attrs: Any) -> Any:
        if not isinstance(a, Value) and not isinstance(b, Value):
            return self.fold(fold, a, b)
        if name in ("pow", "matmul"):
            raise self.error(f"the operator for `{name}` is not supported on tiles",
                             "use tl.exp2/tl.log2 for powers and tl.dot for matrix products")
        for x in (a, b):
            if not isinstance(x, (Value, *Number)):
                raise self.error(f"cannot combine a tile with {x!r}", "use numbers or tiles as operands")
        ta = a.type if isinstance(a, Value) else semantic.python_scalar_type(a)
        tb = b.type if isinstance(b, Value) else semantic.python_scalar_type(b)
        rule = semantic.binary(name, ta, tb, None if isinstance(a, Value) else a, None if isinstance(b, Value) else b)
        shape = shape_of(rule.result)
        if rule.opcode == "addptr":
            p, off = (a, b) if isinstance(element_of(ta), PointerType) else (b, a)
            off = self.to_value(off)
            if name == "sub":
                off = self.emit1("neg", [off], off.type)
            return self.emit1("addptr", [self.broadcast(p, shape), self.broadcast(off, shape)], rule.result)
        operands = [self.broadcast(self.convert(x, rule.operand) if isinstance(x, Value)
                                   else self.constant(x, rule.operand), shape) for x in (a, b)]
        return self.emit1(rule.opcode, operands, rule.result, **dict(rule.attrs), **attrs)

    def expr_UnaryOp(self, node: ast.UnaryOp) -> Any:
        name, fold = _PY_UNOPS[type(node.op)]
        x = self.expr(node.operand)
        if not isinstance(x, Value):
            return self.fold(fold, x)
        if name == "pos":
            return x
        opcode = semantic.unary(name, x.type)
        if opcode == "lnot":
            x = self.convert(x, ir.int1)
            opcode = "not"
        return self.emit1(opcode, [x], x.type)

    def expr_Compare(self, node: ast.Compare) -> Any:
        left, result = self.expr(node.left), None
        for op, right_node in zip(node.ops, node.comparators):
            name, fold = _PY_CMPOPS[type(op)]
            right = self.expr(right_node)
            if name in ("is", "is not", "in", "not in") and (isinstance(left, Value) or isinstance(right, Value)):
                raise self.error(f"`{name}` works on constexpr values only", "compare tiles with == or !=")
            value = self.binary(name, fold, left, right)
            result = value if result is None else self.logical("and", result, value)
            left = right
        return result

    def expr_BoolOp(self, node: ast.BoolOp) -> Any:
        name = "and" if isinstance(node.op, ast.And) else "or"
        result = self.expr(node.values[0])
        for v in node.values[1:]:
            if not isinstance(result, Value) and (not result if name == "and" else result):
                return result  # Python short-circuit on constexprs
            result = self.logical(name, result, self.expr(v))
        return result

    def logical(self, name: str, a: Any, b: Any) -> Any:
        if not isinstance(a, Value) and not isinstance(b, Value):
            return (a and b) if name == "and" else (a or b)
        a, b = (self.convert(self.to_value(x), ir.int1) for x in (a, b))
        return self.binary(name, operator.and_, a, b)

    def expr_IfExp(self, node: ast.IfExp) -> Any:
        """`a if cond else b`: on a constexpr, only the chosen side exists; on a runtime scalar, an `if`
        whose branches compute one side each (a side may load what only its condition makes valid)."""
        cond = self.expr(node.test)
        if not isinstance(cond, Value):
            return self.expr(node.body if cond else node.orelse)
        cond = self.scalar_condition(cond, "a conditional expression")
        then_block, else_block = Block(), Block()
        a = self.in_block(then_block, lambda: self.expr(node.body))
        b = self.in_block(else_block, lambda: self.expr(node.orelse))
        if a is None and b is None:  # `tl.store(...) if c else tl.store(...)`: a statement
            for block in (then_block, else_block):
                block.ops.append(Operation("yield", [], [], {}, self.loc()))
            self.emit("if", [cond], [], regions=[then_block, else_block])
            return None
        for what, x in (("if", a), ("else", b)):
            if not isinstance(x, (Value, *Number)):
                raise self.error(f"the {what} side of a conditional expression with a runtime condition is {x!r}",
                                 "give both sides a number or a tile")
        _, av, bv = self.unify("the conditional expression", a, then_block, b, else_block, "if-side", "else-side")
        then_block.ops.append(Operation("yield", [av], [], {}, self.loc()))
        else_block.ops.append(Operation("yield", [bv], [], {}, self.loc()))
        return self.emit("if", [cond], [av.type], regions=[then_block, else_block]).result

    def expr_Call(self, node: ast.Call) -> Any:
        if isinstance(node.func, ast.Attribute):
            base = self.expr(node.func.value)
            if isinstance(base, Number) and node.func.attr in _LITERAL_TILE_ATTRIBUTES:
                base = self.to_value(base)
            if isinstance(base, Value):  # tensor method: x.to(...), x.sum(0), x.reshape(...)
                args, kwargs = self.call_args(node)
                return self.method(base, node.func.attr, args, kwargs)
            if isinstance(base, TensorDescriptor):  # desc.load(offsets), desc.store(offsets, value)
                args, kwargs = self.call_args(node)
                self.node = node
                return self.descriptor_method(base, node.func.attr, args, kwargs)
            fn = self.constexpr_attribute(base, node.func.attr)
        else:
            fn = self.expr(node.func)
        args, kwargs = self.call_args(node)
        self.node = node
        if isinstance(fn, tl.Builtin):
            return self.call_builtin(fn, args, kwargs)
        if isinstance(fn, JITFunction):
            return self.inline(fn, args, kwargs)
        if fn in (builtins.min, builtins.max) and any(isinstance(a, Value) for a in args):
            return self.call_builtin(tl.minimum if fn is builtins.min else tl.maximum, args, kwargs)
        if any(isinstance(a, Value) for a in [*args, *kwargs.values()]) and fn is not builtins.isinstance:
            hint = ("use tl.device_print" if fn is builtins.print else
                    "decorate it with @metalforge.jit so it is inlined, or use the tl function")
            raise self.error(f"cannot call the Python function `{getattr(fn, '__name__', fn)}` on tiles", hint)
        return self.fold(lambda: fn(*args, **kwargs))

    def call_args(self, node: ast.Call) -> tuple[list[Any], dict[str, Any]]:
        args: list[Any] = []
        for a in node.args:
            if isinstance(a, ast.Starred):
                args.extend(self.expr(a.value))
            else:
                args.append(self.expr(a))
        if any(k.arg is None for k in node.keywords):
            raise self.error("**kwargs in calls is not supported", "pass keyword arguments by name")
        return args, {k.arg: self.expr(k.value) for k in node.keywords}

    def method(self, base: Value, name: str, args: list[Any], kwargs: dict[str, Any]) -> Any:
        if name in ("to", "cast"):
            bound = self.bind(_TO_SIGNATURE, "to", args, kwargs)
            dtype = bound["dtype"]
            if not isinstance(dtype, (ScalarType, PointerType)):
                raise self.error(f".to() needs a dtype, got {dtype!r}", "write x.to(tl.float32)")
            rounding = bound["fp_downcast_rounding"]
            if rounding not in (None, "rtne", "rtz"):
                raise self.error(f"fp_downcast_rounding={rounding!r}: use 'rtne' or 'rtz'", "pass 'rtne' or 'rtz'")
            if rounding == "rtz" and not (element_of(base.type) == ir.float32
                                          and dtype in (ir.float16, ir.bfloat16)):
                raise self.error(f"fp_downcast_rounding applies to float32 -> float16/bfloat16 casts, not "
                                 f"{element_of(base.type)!r} -> {dtype!r}", "drop fp_downcast_rounding")
            if element_of(base.type) == dtype:
                return base
            opcode, t = semantic.cast(base.type, dtype, bool(bound["bitcast"]))
            return self.emit1(opcode, [base], t, **({"rounding": "rtz"} if rounding == "rtz" else {}))
        if name in tl.BUILTINS:
            return self.call_builtin(tl.BUILTINS[name], [base, *args], kwargs)
        raise self.error(f"tiles have no method `{name}`", "use the tl function of that name, if there is one")

    def bind(self, sig: inspect.Signature, name: str, args: list[Any], kwargs: dict[str, Any]) -> dict[str, Any]:
        try:
            bound = sig.bind(*args, **kwargs)
        except TypeError as e:
            raise self.error(f"bad arguments to {name}: {e}", f"the signature is {name}{sig}") from None
        bound.apply_defaults()
        return {k: (v.value if isinstance(v, tl.constexpr) else v) for k, v in bound.arguments.items()}

    def inline(self, fn: JITFunction, args: list[Any], kwargs: dict[str, Any]) -> Any:
        """Build a @jit helper's body in place with its own variables; its return value is the result."""
        if any(f.fn is fn for f in self._frames):
            raise self.error(f"@jit helper `{fn.__name__}` calls itself", "recursion is not supported; use a loop")
        bound = self.bind(fn.signature, fn.__name__, args, kwargs)
        for p in fn.constexpr_params:
            if isinstance(bound[p], Value):
                raise self.error(f"argument `{p}` of `{fn.__name__}` is tl.constexpr but got a runtime value",
                                 "pass a constexpr (a Python constant or constexpr parameter)")
        outer_frame, outer_node = self.frame, self.node
        self._frames.append(outer_frame)
        self.frame = _Frame(fn, fn.source, dict(bound))
        try:
            return self.run_body(fn.source.tree, allow_return_value=True)
        except KernelDefinitionError as e:
            if not fn.library or outer_frame.fn.library:  # the outermost tl helper re-raises at its caller
                raise
            self.frame, self.node = outer_frame, outer_node
            raise self.error(f"tl.{fn.__name__}: {e.reason}", e.hint) from None
        finally:
            self.frame, self.node = outer_frame, outer_node
            self._frames.pop()

    # --- builtins -----------------------------------------------------------------------------
    def call_builtin(self, fn: tl.Builtin, args: list[Any], kwargs: dict[str, Any]) -> Any:
        if fn in (tl.range, tl.static_range):
            raise self.error(f"tl.{fn.name} can only be used as a for-loop iterator", f"write `for i in tl.{fn.name}(...)`")
        bound = self.bind(fn.signature, f"tl.{fn.name}", args, kwargs)
        return getattr(self, f"b_{fn.name}")(**bound)

    def value_arg(self, x: Any, what: str) -> Value:
        if isinstance(x, Value):
            return x
        if isinstance(x, Number):
            return self.to_value(x)
        raise self.error(f"{what} must be a tile or a number, got {x!r}", f"pass a tile as {what}")

    def const_arg(self, x: Any, what: str, kind: type | tuple[type, ...] = int) -> Any:
        if isinstance(x, Value):
            raise self.error(f"{what} must be a constexpr, got a runtime value",
                             "pass it as a `tl.constexpr` parameter or a Python constant")
        if not isinstance(x, kind):
            raise self.error(f"{what} must be {getattr(kind, '__name__', kind)}, got {x!r}", f"fix {what}")
        return x

    def shape_arg(self, shape: Any) -> tuple[int, ...]:
        shape = tuple(shape) if isinstance(shape, (tuple, list)) else (shape,)
        if len(shape) == 1 and isinstance(shape[0], (tuple, list)):
            shape = tuple(shape[0])
        for s in shape:
            self.const_arg(s, "a tile dimension")
        return semantic.check_block_shape(shape)

    def dtype_arg(self, dtype: Any) -> ScalarType:
        if not isinstance(dtype, ScalarType):
            raise self.error(f"expected a dtype such as tl.float32, got {dtype!r}", "pass a tl dtype")
        return semantic.check_metal_type(dtype)

    def axis_arg(self, axis: Any, rank: int, allow_none: bool = True) -> int | None:
        if axis is None and allow_none:
            return None
        return semantic.normalize_axis(self.const_arg(axis, "axis"), rank)

    def b_program_id(self, axis: Any) -> Value:
        if self.const_arg(axis, "axis") not in (0, 1, 2):
            raise self.error(f"program_id axis must be 0, 1 or 2, got {axis}", "use axis 0, 1 or 2")
        return self.emit1("program_id", [], ir.int32, axis=axis)

    def b_num_programs(self, axis: Any) -> Value:
        if self.const_arg(axis, "axis") not in (0, 1, 2):
            raise self.error(f"num_programs axis must be 0, 1 or 2, got {axis}", "use axis 0, 1 or 2")
        return self.emit1("num_programs", [], ir.int32, axis=axis)

    def b_cdiv(self, x: Any, div: Any) -> Any:
        total = self.binary("sub", operator.sub, self.binary("add", operator.add, x, div), 1)
        return self.binary("floordiv", operator.floordiv, total, div)

    def b_arange(self, start: Any, end: Any) -> Value:
        for name, b in (("start", start), ("end", end)):
            if not isinstance(b, int) or isinstance(b, bool):
                raise self.error(f"tl.arange bounds must be constexpr integers; `{name}` is "
                                 f"{'a runtime value' if isinstance(b, Value) else repr(b)}",
                                 "make the bound a `tl.constexpr` parameter (e.g. BLOCK: tl.constexpr) and mask "
                                 "with a runtime comparison like offs < n")
        n = end - start
        if n <= 0 or n & (n - 1):
            raise self.error(f"tl.arange({start}, {end}) has {n} elements, which is not a positive power of two",
                             "use a power-of-two block size and mask the remainder with offs < n")
        return self.emit1("arange", [], make_type(ir.int32, (n,)), start=start, end=end)

    def b_zeros(self, shape: Any, dtype: Any) -> Value:
        return self.b_full(shape, 0, dtype)

    def b_full(self, shape: Any, value: Any, dtype: Any) -> Value:
        shape, dtype = self.shape_arg(shape), self.dtype_arg(dtype)
        if isinstance(value, Value):
            if shape_of(value.type):
                raise self.error("tl.full needs a scalar value", "pass a scalar or use tl.broadcast_to")
            return self.broadcast(self.convert(value, dtype), shape)
        self.const_arg(value, "value", Number)
        if dtype.is_int and not dtype.is_bool and not isinstance(value, float):  # Triton refuses, not wraps
            semantic.check_fits(value, dtype)
        return self.emit1("full", [], make_type(dtype, shape), value=semantic.constant_value(value, dtype))

    def b_reshape(self, input: Any, shape: tuple[Any, ...], can_reorder: bool) -> Value:
        """Row-major order is kept also with `can_reorder=True`, which only allows reordering (Triton's
        interpreter keeps it too)."""
        x, shape = self.value_arg(input, "input"), self.shape_arg(shape)
        if ir.BlockType(element_of(x.type), shape).numel != (x.type.numel if shape_of(x.type) else 1):
            raise self.error(f"cannot reshape {x.type} to {list(shape)}: the element count differs",
                             "keep the total number of elements")
        return self.emit1("reshape", [x], make_type(element_of(x.type), shape))

    def permute(self, x: Value, dims: tuple[int, ...]) -> Value:
        shape = shape_of(x.type)
        if len(dims) == 1 and isinstance(dims[0], (tuple, list)):
            dims = tuple(dims[0])
        if sorted(dims) != list(builtins.range(len(shape))):
            raise self.error(f"{list(dims)} is not a permutation of the axes of {x.type}",
                             f"list each axis 0..{len(shape) - 1} once")
        return self.emit1("permute", [x], make_type(element_of(x.type), tuple(shape[d] for d in dims)),
                          dims=tuple(dims))

    def b_trans(self, input: Any, dims: tuple[int, ...]) -> Value:
        """Without dims, Triton's (batched) transpose: the last two axes swap."""
        x = self.value_arg(input, "input")
        rank = len(shape_of(x.type))
        if not dims:
            if rank < 2:
                raise self.error(f"tl.trans without dims needs a tile of rank 2 or more, got {x.type}",
                                 "pass the permutation, or add an axis with x[None, :]")
            dims = (*builtins.range(rank - 2), rank - 1, rank - 2)
        return self.permute(x, dims)

    def b_permute(self, input: Any, dims: tuple[int, ...]) -> Value:
        return self.permute(self.value_arg(input, "input"), dims)

    def expand_dims(self, x: Value, axis: int) -> Value:
        shape = shape_of(x.type)
        if not shape:  # a scalar becomes a 1-element tile (Triton splats it)
            semantic.normalize_axis(axis, 1)
            return self.broadcast(x, (1,))
        axis = semantic.normalize_axis(axis, len(shape) + 1)
        return self.emit1("expand_dims", [x], make_type(element_of(x.type), shape[:axis] + (1,) + shape[axis:]),
                          axis=axis)

    def b_expand_dims(self, input: Any, axis: Any) -> Value:
        x = self.value_arg(input, "input")
        axes = axis if isinstance(axis, (tuple, list)) else (axis,)
        rank = len(shape_of(x.type)) + len(axes)
        for a in sorted(semantic.normalize_axis(self.const_arg(a, "axis"), rank) for a in axes):
            x = self.expand_dims(x, a)
        return x

    def b_broadcast_to(self, input: Any, shape: tuple[Any, ...]) -> Value:
        return self.broadcast(self.value_arg(input, "input"), self.shape_arg(shape))

    def b_broadcast(self, input: Any, other: Any) -> tuple[Value, Value]:
        x, y = self.value_arg(input, "input"), self.value_arg(other, "other")
        shape = semantic.broadcast_shapes(shape_of(x.type), shape_of(y.type))
        return self.broadcast(x, shape), self.broadcast(y, shape)

    def b_view(self, input: Any, shape: tuple[Any, ...]) -> Value:
        return self.b_reshape(input, shape, can_reorder=True)

    def b_join(self, a: Any, b: Any) -> Value:
        """np.stack([a, b], axis=-1): both broadcast along a new minor axis of size 2, and the
        element at minor index 0 taken from a, at 1 from b (index arithmetic and a select)."""
        like = next((element_of(v.type) for v in (a, b) if isinstance(v, Value)), None)
        a, b = self.b_broadcast(*(self.to_value(v, like) if isinstance(v, Number) else v for v in (a, b)))
        if element_of(a.type) != element_of(b.type):
            raise self.error(f"tl.join needs operands of one type, got {element_of(a.type)!r} and "
                             f"{element_of(b.type)!r}", "convert one with .to(...) first")
        shape = shape_of(a.type) + (2,)
        first = self.binary("eq", operator.eq, self.broadcast(self.b_arange(0, 2), shape), 0)
        halves = [self.broadcast(self.expand_dims(v, len(shape) - 1), shape) for v in (a, b)]
        return self.emit1("select", [first, *halves], make_type(element_of(a.type), shape))

    def b_split(self, a: Any) -> tuple[Value, Value]:
        x = self.value_arg(a, "a")
        shape = shape_of(x.type)
        if not shape or shape[-1] != 2:
            raise self.error(f"tl.split needs a tile whose last axis has size 2, got {x.type}",
                             "reshape it to (..., 2) first, e.g. tl.reshape(x, (N // 2, 2))")
        t = make_type(element_of(x.type), shape[:-1])
        return self.emit1("extract", [x], t, axis=len(shape) - 1, index=0), \
            self.emit1("extract", [x], t, axis=len(shape) - 1, index=1)

    def b_interleave(self, a: Any, b: Any) -> Value:
        pairs = self.b_join(a, b)
        shape = shape_of(pairs.type)
        if len(shape) == 1:  # two scalars
            return pairs
        return self.emit1("reshape", [pairs], make_type(element_of(pairs.type), shape[:-2] + (2 * shape[-2],)))

    def b_cat(self, input: Any, other: Any, can_reorder: Any) -> Value:
        """The concatenation in order (as Triton's interpreter; Triton's compiler may reorder)."""
        if not can_reorder:
            raise self.error("tl.cat without can_reorder=True is not supported (Triton refuses it too: its cat "
                             "may reorder elements)", "pass can_reorder=True; metalforge keeps the order")
        x, y = self.value_arg(input, "input"), self.value_arg(other, "other")
        if len(shape_of(x.type)) != 1 or x.type != y.type:
            raise self.error(f"tl.cat concatenates two 1-D tiles of one shape and type, got {x.type} and {y.type}",
                             "pass 1-D tiles of the same size and type (the result's size must be a power of two)")
        rows = self.permute(self.b_join(x, y), (1, 0))  # [2, n]: x's elements, then y's
        return self.emit1("reshape", [rows], make_type(element_of(x.type), (2 * shape_of(x.type)[0],)))

    def b_flip(self, x: Any, dim: Any) -> Value:
        v = self.value_arg(x, "x")
        rank = len(shape_of(v.type))
        if not rank:
            raise self.error("tl.flip needs a tile, got a scalar", "flip a tile")
        axis = rank - 1 if dim is None else semantic.normalize_axis(self.const_arg(dim, "dim"), rank)
        return self.emit1("flip", [v], v.type, axis=axis)

    def b_gather(self, src: Any, index: Any, axis: Any) -> Value:
        """Triton's rules: index is an integer tile of src's rank, equal to src in every other axis."""
        s, i = self.value_arg(src, "src"), self.value_arg(index, "index")
        ss, si = shape_of(s.type), shape_of(i.type)
        if not element_of(i.type).is_int:
            raise self.error(f"tl.gather needs an integer index tile, got {i.type}", "convert index with .to(tl.int32)")
        if not ss or len(si) != len(ss):
            raise self.error(f"tl.gather needs src and index tiles of one rank, got {s.type} and {i.type}",
                             "reshape index to src's rank")
        ax = semantic.normalize_axis(self.const_arg(axis, "axis"), len(ss))
        if any(a != b for d, (a, b) in enumerate(zip(ss, si)) if d != ax):
            raise self.error(f"tl.gather's index must match src in every axis but {ax}: got {list(si)} for "
                             f"src {list(ss)}", f"give index src's size in every axis other than {ax}")
        return self.emit1("gather", [s, i], make_type(element_of(s.type), si), axis=ax)

    def common(self, xs: list[Any]) -> tuple[ScalarType, tuple[int, ...]]:
        """Element type and shape that elementwise operands meet at (Triton's pairwise promotion)."""
        typed = [(x.type if isinstance(x, Value) else semantic.python_scalar_type(x), not isinstance(x, Value))
                 for x in xs]
        (t, py), shape = typed[0], shape_of(typed[0][0])
        e = element_of(t)
        for t2, py2 in typed[1:]:
            e2 = element_of(t2)
            if isinstance(e, PointerType) or isinstance(e2, PointerType):
                raise TypeRuleError("pointers cannot be used here", "load the values first")
            e = semantic.computation_type(e, py, e2, py2, False)
            shape, py = semantic.broadcast_shapes(shape, shape_of(t2)), py and py2
        return e, shape

    def elementwise(self, opcode: str, xs: list[Any], floats_only: bool = False) -> Value:
        for x in xs:
            self.value_arg(x, "an operand")
        e, shape = self.common(xs)
        if floats_only and not e.is_float:
            raise self.error(f"tl.{opcode} needs floating-point operands, got {e!r}", "convert with .to(tl.float32)")
        vals = [self.broadcast(self.convert(x, e) if isinstance(x, Value) else self.constant(x, e), shape) for x in xs]
        return self.emit1(opcode, vals, make_type(e, shape))

    def b_where(self, condition: Any, x: Any, y: Any) -> Value:
        cond = self.convert(self.value_arg(condition, "condition"), ir.int1)
        e, shape = self.common([x, y])
        for v in (x, y):  # Triton's where checks its constants as an operator does: 300 is no int8
            if isinstance(v, Number):
                semantic.check_python_operand(v, e)
        shape = semantic.broadcast_shapes(shape, shape_of(cond.type))
        vals = [self.broadcast(self.convert(v, e) if isinstance(v, Value) else self.constant(v, e), shape)
                for v in (x, y)]
        return self.emit1("select", [self.broadcast(cond, shape), *vals], make_type(e, shape))

    def tiles_of(self, xs: list[Any]) -> list[Value]:
        """The operands as Triton's tl.minimum, tl.maximum and tl.clamp take them (core.py): a Python
        number is first a tile of its own type (float32, int32), so it promotes as a tile does
        (`tl.maximum(x_f16, 0.0)` is float32, `tl.minimum(x_i8, 3)` int32), and bfloat16, which GPUs
        neither compare nor order, becomes float32."""
        vals = [self.value_arg(x, "an operand") for x in xs]
        return [self.convert(v, ir.float32) if element_of(v.type) == ir.bfloat16 else v for v in vals]

    def min_max(self, kind: str, x: Any, y: Any, propagate_nan: Any) -> Value:
        x, y = self.tiles_of([x, y])
        return self.propagate_nan(self.elementwise(kind, [x, y]), [x, y], propagate_nan)

    def propagate_nan(self, result: Value, operands: list[Any], propagate_nan: Any) -> Value:
        """Metal's min/max/clamp return the number where a NaN meets one (Triton's PropagateNan.NONE, as
        on GPUs); with PropagateNan.ALL a NaN operand is the result (the first listed wins, applied last)."""
        if propagate_nan not in (None, tl.PropagateNan.NONE, tl.PropagateNan.ALL):
            raise self.error(f"propagate_nan must be a tl.PropagateNan, got {propagate_nan!r}",
                             "pass tl.PropagateNan.ALL or tl.PropagateNan.NONE")
        e = element_of(result.type)
        if propagate_nan is not tl.PropagateNan.ALL or not e.is_float:
            return result
        for v in reversed(operands):
            v = self.convert(self.broadcast(self.to_value(v, e), shape_of(result.type)), e)
            result = self.b_where(self.binary("ne", operator.ne, v, v), v, result)
        return result

    def b_minimum(self, x: Any, y: Any, propagate_nan: Any) -> Value:
        return self.min_max("minimum", x, y, propagate_nan)

    def b_maximum(self, x: Any, y: Any, propagate_nan: Any) -> Value:
        return self.min_max("maximum", x, y, propagate_nan)

    def b_clamp(self, x: Any, min: Any, max: Any, propagate_nan: Any) -> Value:
        x, min, max = self.tiles_of([x, min, max])
        return self.propagate_nan(self.elementwise("clamp", [x, min, max], floats_only=True), [x], propagate_nan)

    def b_fma(self, x: Any, y: Any, z: Any) -> Value:
        # Triton's tl.fma makes each operand a tile first (math.py): no Python constant keeps a tile's type;
        # of floats only (an integer fma does not compile there either)
        return self.elementwise("fma", [self.value_arg(v, "an operand") for v in (x, y, z)], floats_only=True)

    def math(self, name: str, x: Any, opcode: str | None = None, **attrs: Any) -> Value:
        v = self.value_arg(x, "x")
        return self.emit1(opcode or name, [v], semantic.unary_math(name, v.type), **attrs)

    def b_sqrt_rn(self, x: Any) -> Value:
        # `rounding="rn"`: correctly rounded where the target's plain sqrt is not (CUDA's sqrt.approx)
        return self.math("sqrt_rn", x, "sqrt", rounding="rn")

    def float_division(self, name: str, x: Any, y: Any, rounded: bool = False) -> Value:
        """tl.math.div_rn / fdiv: `/` on float32 operands (Triton checks the type first); `rounded`:
        correctly rounded (`rounding="rn"`) where the target's `/` is not (CUDA's div.full, 2 ulp)."""
        for v in (x, y):
            semantic.unary_math(name, self.value_arg(v, "an operand").type)
        return self.binary("truediv", operator.truediv, x, y, **({"rounding": "rn"} if rounded else {}))

    def b_div_rn(self, x: Any, y: Any) -> Value:
        return self.float_division("div_rn", x, y, rounded=True)

    def b_fdiv(self, x: Any, y: Any, ieee_rounding: Any) -> Value:
        return self.float_division("fdiv", x, y, rounded=self.const_arg(ieee_rounding, "ieee_rounding", bool))

    def b_umulhi(self, x: Any, y: Any) -> Value:
        """The high half of x * y, through the product in 64 bits (signed operands: the signed product,
        as Triton's interpreter computes it)."""
        e, shape = self.common([self.value_arg(x, "x"), y])
        if not e.is_int or e.bits > 32:
            raise self.error(f"tl.umulhi takes integers of up to 32 bits here, got {e!r}",
                             "Metal has no 128-bit product: split 64-bit operands into 32-bit halves")
        wide = ir.int64 if e.signed else ir.uint64
        x, y = (self.broadcast(self.to_value(v, e), shape) for v in (x, y))
        product = self.binary("mul", operator.mul, self.convert(self.convert(x, e), wide),
                              self.convert(self.convert(y, e), wide))
        return self.convert(self.binary("rshift", operator.rshift, product, e.bits), e)

    def b_cast(self, input: Any, dtype: Any, fp_downcast_rounding: Any, bitcast: Any) -> Value:
        return self.method(self.value_arg(input, "input"), "to", [dtype],
                           {"fp_downcast_rounding": fp_downcast_rounding, "bitcast": bitcast})

    def b_zeros_like(self, input: Any) -> Value:
        x = self.value_arg(input, "input")
        return self.b_full(shape_of(x.type), 0, element_of(x.type))

    def reduction(self, kind: str, input: Any, axis: Any, keep_dims: Any, dtype: ScalarType | None = None,
                  **attrs: Any) -> Value:
        x = self.value_arg(input, "input")
        compute, result = semantic.reduction(kind, x.type, self.axis_arg(axis, len(shape_of(x.type)),
                                                                          kind not in ("argmax", "argmin")),
                                             bool(keep_dims), dtype)
        axis = None if axis is None else semantic.normalize_axis(axis, len(shape_of(x.type)))
        return self.emit1(kind, [self.convert(x, compute)], result, axis=axis, keep_dims=bool(keep_dims), **attrs)

    def b_sum(self, input: Any, axis: Any, keep_dims: Any, dtype: Any) -> Value:
        # a given dtype is the sum's type, narrow or not (tl.sum(x_i8, dtype=tl.int8) wraps at int8)
        return self.reduction("sum", input, axis, keep_dims, None if dtype is None else self.dtype_arg(dtype))

    def minmax(self, kind: str, input: Any, axis: Any, return_indices: Any, tie_left: Any, keep_dims: Any) -> Any:
        value = self.reduction(kind, input, axis, keep_dims)
        if not return_indices:
            return value
        return value, self.reduction(f"arg{kind}", input, axis, keep_dims, tie_break_left=bool(tie_left))

    def b_max(self, input: Any, axis: Any, return_indices: Any, return_indices_tie_break_left: Any,
              keep_dims: Any) -> Any:
        return self.minmax("max", input, axis, return_indices, return_indices_tie_break_left, keep_dims)

    def b_min(self, input: Any, axis: Any, return_indices: Any, return_indices_tie_break_left: Any,
              keep_dims: Any) -> Any:
        return self.minmax("min", input, axis, return_indices, return_indices_tie_break_left, keep_dims)

    def b_argmax(self, input: Any, axis: Any, tie_break_left: Any, keep_dims: Any) -> Value:
        return self.reduction("argmax", input, axis, keep_dims, tie_break_left=bool(tie_break_left))

    def b_argmin(self, input: Any, axis: Any, tie_break_left: Any, keep_dims: Any) -> Value:
        return self.reduction("argmin", input, axis, keep_dims, tie_break_left=bool(tie_break_left))

    def combine_region(self, combine_fn: Any, elements: list[ir.Element], what: str) -> Block:
        """A region (a_0.., b_0..) -> combine_fn(a_0.., b_0..) over scalars, one per combined tile, for
        tl.reduce and tl.associative_scan (Triton passes the left operands, then the right ones)."""
        if not isinstance(combine_fn, JITFunction):
            raise self.error(f"combine_fn must be a @metalforge.jit function, got {combine_fn!r}",
                             "decorate the combine function with @metalforge.jit")
        block = Block([Value(e, "a") for e in elements] + [Value(e, "b") for e in elements])
        out = self.in_block(block, lambda: self.inline(combine_fn, list(block.args), {}))
        outs = list(out) if isinstance(out, (tuple, list)) else [out]
        if len(outs) != len(elements):
            raise self.error(f"combine_fn `{combine_fn.__name__}` of {what} returns {len(outs)} value(s) for "
                             f"{len(elements)} tile(s)", "return one value per combined tile, in the input's order")
        values = [self.in_block(block, lambda o=o, e=e: self.to_value(o, e)) for o, e in zip(outs, elements)]
        for v, e in zip(values, elements):
            if v.type != e:
                raise self.error(f"combine_fn returns {v.type} but combines {e}",
                                 "return a scalar of the input's type from combine_fn")
        block.ops.append(Operation("yield", values, [], {}, self.loc()))
        return block

    def combined_tiles(self, input: Any, what: str) -> tuple[list[Value], bool]:
        """The tiles of tl.reduce's or tl.associative_scan's input (a tile or a tuple of tiles of one
        shape), and whether it was a tuple (the result is then a tuple too, as in Triton)."""
        as_tuple = isinstance(input, (tuple, list))
        tiles = [self.value_arg(x, "input") for x in (input if as_tuple else [input])]
        if not tiles:
            raise self.error(f"{what} needs at least one tile", "pass a tile or a tuple of tiles")
        shapes = {shape_of(x.type) for x in tiles}
        if len(shapes) > 1:
            raise self.error(f"{what} combines tiles of one shape, got {sorted(shapes)}",
                             "tl.broadcast_to the tiles to one shape first")
        return tiles, as_tuple

    def b_reduce(self, input: Any, axis: Any, combine_fn: Any, keep_dims: Any) -> Any:
        tiles, as_tuple = self.combined_tiles(input, "tl.reduce")
        shape = shape_of(tiles[0].type)
        if not shape:
            raise self.error("tl.reduce needs a tile", "reduce a tile, not a scalar")
        ax = self.axis_arg(axis, len(shape))
        region = self.combine_region(combine_fn, [element_of(x.type) for x in tiles], "tl.reduce")
        types = [make_type(element_of(x.type), semantic.reduced_shape(shape, ax, bool(keep_dims))) for x in tiles]
        results = self.emit("reduce", tiles, types, {"axis": ax, "keep_dims": bool(keep_dims)}, [region]).results
        return tuple(results) if as_tuple else results[0]

    def b_cumsum(self, input: Any, axis: Any, reverse: Any, dtype: Any) -> Value:
        x = self.value_arg(input, "input")
        if element_of(x.type) == ir.bfloat16:  # Triton's cumsum makes bf16 fp32 first, then applies dtype
            x = self.convert(x, ir.float32)
        x = self.convert(x, semantic.sum_type(element_of(x.type)) if dtype is None else self.dtype_arg(dtype))
        ax = self.axis_arg(axis, len(shape_of(x.type)), allow_none=False)
        return self.emit1("cumsum", [x], x.type, axis=ax, reverse=bool(reverse))

    def b_sort(self, x: Any, dim: Any, descending: Any) -> Value:
        """Along the last axis only, as Triton (its sort_impl asserts it)."""
        v = self.value_arg(x, "x")
        rank = len(shape_of(v.type))
        if not rank:
            raise self.error("tl.sort needs a tile, got a scalar", "sort a tile")
        if dim is not None and semantic.normalize_axis(self.const_arg(dim, "dim"), rank) != rank - 1:
            raise self.error(f"tl.sort sorts along the last axis only (as Triton), got dim={dim} for {v.type}",
                             "tl.permute the axis to sort last, sort, and permute back")
        return self.emit1("sort", [v], v.type, descending=bool(self.const_arg(descending, "descending", (bool, int))))

    def b_topk(self, x: Any, k: Any, dim: Any) -> Value:
        """Triton's topk (standard.py: sort_impl with k, descending): the largest k along the last axis,
        largest first; here the row sorted descending and its first k elements gathered."""
        v = self.value_arg(x, "x")
        shape = shape_of(v.type)
        if not shape:
            raise self.error("tl.topk needs a tile, got a scalar", "take the top k of a tile")
        if dim is not None and semantic.normalize_axis(self.const_arg(dim, "dim"), len(shape)) != len(shape) - 1:
            raise self.error(f"tl.topk selects along the last axis only (as Triton), got dim={dim} for {v.type}",
                             "tl.permute the axis to select along last, and permute back")
        k = self.const_arg(k, "k")
        if not 1 <= k <= shape[-1] or k & (k - 1):
            raise self.error(f"tl.topk needs k a power of two from 1 to the last axis' {shape[-1]}, got k={k}",
                             "pass a power-of-two k, e.g. triton.next_power_of_2 of the count you need")
        ranked = self.emit1("sort", [v], v.type, descending=True)
        first = self.broadcast(self.b_arange(0, k), (*shape[:-1], k))
        return self.emit1("gather", [ranked, first], make_type(element_of(v.type), (*shape[:-1], k)),
                          axis=len(shape) - 1)

    def b_histogram(self, input: Any, num_bins: Any, mask: Any) -> Value:
        """Triton's semantic.histogram: int32 counts of a 1-D integer tile's values, bins of width 1 from
        0; values outside [0, num_bins) count nowhere, nor do elements where `mask` is False."""
        x = self.value_arg(input, "input")
        if len(shape_of(x.type)) != 1 or not element_of(x.type).is_int:
            raise self.error(f"tl.histogram needs a 1-D integer tile, got {x.type}",
                             "reshape it to 1-D (tl.reshape(x, [n])) and convert it with .to(tl.int32)")
        bins = self.const_arg(num_bins, "num_bins")
        if bins < 1 or bins & (bins - 1):
            raise self.error(f"tl.histogram needs a power-of-two num_bins (its result is a tile), got {bins}",
                             "round num_bins up to a power of two and ignore the bins past the ones you need")
        operands = [x]
        if mask is not None:
            m = self.value_arg(mask, "mask")
            if element_of(m.type) != ir.int1:
                raise self.error(f"tl.histogram's mask must be boolean, got {m.type}", "pass a comparison, e.g. offs < n")
            operands.append(self.broadcast(m, shape_of(x.type)))
        return self.emit1("histogram", operands, make_type(ir.int32, (bins,)))

    def b_cumprod(self, input: Any, axis: Any, reverse: Any) -> Value:
        """Triton's cumprod: a scan with a multiply, in the input's type (bf16 in fp32, as Triton)."""
        x = self.value_arg(input, "input")
        if element_of(x.type) == ir.bfloat16:
            x = self.convert(x, ir.float32)
        ax = self.axis_arg(axis, len(shape_of(x.type)), allow_none=False)
        element = element_of(x.type)
        block = Block([Value(element, "a"), Value(element, "b")])
        product = self.in_block(block, lambda: self.binary("mul", operator.mul, *block.args))
        block.ops.append(Operation("yield", [product], [], {}, self.loc()))
        return self.emit("scan", [x], [x.type], {"axis": ax, "reverse": bool(reverse)}, [block]).result

    def b_associative_scan(self, input: Any, axis: Any, combine_fn: Any, reverse: Any) -> Any:
        tiles, as_tuple = self.combined_tiles(input, "tl.associative_scan")
        ax = self.axis_arg(axis, len(shape_of(tiles[0].type)), allow_none=False)
        region = self.combine_region(combine_fn, [element_of(x.type) for x in tiles], "tl.associative_scan")
        results = self.emit("scan", tiles, [x.type for x in tiles], {"axis": ax, "reverse": bool(reverse)},
                            [region]).results
        return tuple(results) if as_tuple else results[0]

    def pointer_arg(self, pointer: Any, what: str) -> tuple[Value, ScalarType]:
        if not isinstance(pointer, Value) or not isinstance(element_of(pointer.type), PointerType):
            raise self.error(f"{what} needs pointers, got {getattr(pointer, 'type', pointer)!r}",
                             "pass a pointer argument plus offsets, e.g. x_ptr + offs")
        return pointer, element_of(pointer.type).element

    def mask_arg(self, mask: Any) -> Value | None:
        return None if mask is None else self.convert(self.value_arg(mask, "mask"), ir.int1)

    def b_make_block_ptr(self, base: Any, shape: Any, strides: Any, offsets: Any, block_shape: Any,
                         order: Any) -> BlockPointer:
        p, _ = self.pointer_arg(base, "tl.make_block_ptr")
        if shape_of(p.type):
            raise self.error("tl.make_block_ptr needs a scalar base pointer, got a tile of pointers",
                             "pass the tensor's pointer argument (plus a scalar offset) as base")
        parts = {}
        for what, x in (("shape", shape), ("strides", strides), ("offsets", offsets), ("block_shape", block_shape),
                        ("order", order)):
            if not isinstance(x, (tuple, list)):
                raise self.error(f"tl.make_block_ptr's {what} must be a tuple, got {x!r}", f"pass {what}=(...,)")
            parts[what] = tuple(x)
        rank = len(parts["block_shape"])
        if any(len(v) != rank for v in parts.values()):
            raise self.error("tl.make_block_ptr's shape, strides, offsets, block_shape and order differ in length: "
                             + ", ".join(f"{k} {len(v)}" for k, v in parts.items()), "give each one entry per axis")
        for b in parts["block_shape"]:
            if not isinstance(self.const_arg(b, "a block_shape entry"), int) or b <= 0 or b & (b - 1):
                raise self.error(f"tl.make_block_ptr's block_shape {list(parts['block_shape'])} has an entry that is "
                                 "not a power of two", "use power-of-two block sizes and boundary_check for the edge")
        if sorted(self.const_arg(o, "an order entry") for o in parts["order"]) != list(builtins.range(rank)):
            raise self.error(f"tl.make_block_ptr's order {list(parts['order'])} is not a permutation of the axes",
                             f"list each axis 0..{rank - 1} once, fastest-varying first")
        for what in ("shape", "strides"):
            for x in parts[what]:
                scalar_int = isinstance(x, Value) and not shape_of(x.type) and element_of(x.type).is_int
                if not (scalar_int or isinstance(x, int) and not isinstance(x, bool)):
                    raise self.error(f"tl.make_block_ptr's {what} must be integers, got {x!r}", f"pass integer {what}")
        return BlockPointer(p, parts["shape"], parts["strides"], self.block_offsets(parts["offsets"]),
                            parts["block_shape"], parts["order"])

    def b_make_tensor_descriptor(self, base: Any, shape: Any, strides: Any, block_shape: Any,
                                 padding_option: Any) -> TensorDescriptor:
        """Triton's checks (1 to 5 axes, a contiguous last axis, at least 16 bytes of it a block, 'zero'
        or 'nan' padding, 'nan' for floats only), then the block pointer's."""
        what = "tl.make_tensor_descriptor"
        parts = {}
        for name, x in (("shape", shape), ("strides", strides), ("block_shape", block_shape)):
            if not isinstance(x, (tuple, list)):
                raise self.error(f"{what}'s {name} must be a list, got {x!r}", f"pass {name}=[...]")
            parts[name] = tuple(x)
        rank = len(parts["shape"])
        if not 1 <= rank <= 5 or len(parts["strides"]) != rank or len(parts["block_shape"]) != rank:
            raise self.error(f"{what} needs 1 to 5 axes, with one stride and one block size each; got shape of "
                             f"{rank}, {len(parts['strides'])} strides, block_shape of {len(parts['block_shape'])}",
                             "give shape, strides and block_shape one entry per axis")
        if not isinstance(parts["strides"][-1], int) or parts["strides"][-1] != 1:
            raise self.error(f"{what}'s last stride must be the constant 1 (a contiguous last axis), got "
                             f"{parts['strides'][-1]!r}", "make the contiguous axis the last one (or use "
                             "tl.make_block_ptr, which takes any strides)")
        p, e = self.pointer_arg(base, what)
        last = self.const_arg(parts["block_shape"][-1], "a block_shape entry")
        if last * max(1, e.bits // 8) < 16:
            raise self.error(f"{what}'s block has {last} x {max(1, e.bits // 8)} bytes along its last axis; Triton "
                             "asks for at least 16", f"make block_shape[-1] at least {-(-16 // max(1, e.bits // 8))}")
        if padding_option not in ("zero", "nan"):
            raise self.error(f"{what}: padding_option={padding_option!r} is not 'zero' or 'nan'",
                             "pass padding_option='zero' or 'nan'")
        if padding_option == "nan" and not e.is_float:
            raise self.error(f"{what}: padding_option='nan' needs floating-point elements, got {e!r}",
                             "pad integers with padding_option='zero'")
        block = self.b_make_block_ptr(p, parts["shape"], parts["strides"], [0] * rank, parts["block_shape"],
                                      tuple(builtins.range(rank - 1, -1, -1)))  # its own checks too
        return TensorDescriptor(block, padding_option)

    def descriptor_block(self, desc: Any, offsets: Any, what: str) -> tuple[BlockPointer, tuple[int, ...]]:
        """The descriptor's block pointer moved to `offsets`, and all its axes (the ones checked)."""
        if not isinstance(desc, TensorDescriptor):
            raise self.error(f"{what} needs a tensor descriptor, got {getattr(desc, 'type', desc)!r}",
                             "make one with tl.make_tensor_descriptor")
        offsets = tuple(offsets) if isinstance(offsets, (tuple, list)) else (offsets,)
        rank = len(desc.block.block_shape)
        if len(offsets) != rank:
            raise self.error(f"{what} got {len(offsets)} offsets for a descriptor of {rank} axes",
                             "give one element offset per axis")
        return replace(desc.block, offsets=self.block_offsets(offsets)), tuple(builtins.range(rank))

    def b_load_tensor_descriptor(self, desc: Any, offsets: Any) -> Value:
        bp, axes = self.descriptor_block(desc, offsets, "tl.load_tensor_descriptor")
        return self.b_load(bp, None, None, axes, desc.padding, "", "", False)

    def b_store_tensor_descriptor(self, desc: Any, offsets: Any, value: Any) -> None:
        bp, axes = self.descriptor_block(desc, offsets, "tl.store_tensor_descriptor")
        self.b_store(bp, value, None, axes, "", "")

    def descriptor_method(self, desc: TensorDescriptor, name: str, args: list[Any], kwargs: dict[str, Any]) -> Any:
        """`desc.load(offsets)` and `desc.store(offsets, value)`, as tl.load_/store_tensor_descriptor."""
        methods = {"load": (self.b_load_tensor_descriptor, ("offsets",)),
                   "store": (self.b_store_tensor_descriptor, ("offsets", "value"))}
        if name not in methods:
            raise self.error(f"a tensor descriptor's .{name}() is not supported by metalforge yet (it has .load and "
                             ".store)", "load the block, update it, and store it back (or use tl.atomic_* on a "
                             "pointer tile)")
        impl, params = methods[name]
        given = {**kwargs, **dict(zip(params, args))}
        if len(args) > len(params) or set(kwargs) & set(params[:len(args)]) or set(given) != set(params):
            raise self.error(f"desc.{name}() takes ({', '.join(params)}), got {len(args)} positional and "
                             f"{sorted(kwargs)} keyword argument(s)", f"call desc.{name}({', '.join(params)})")
        return impl(desc, *(given[p] for p in params))

    def block_offsets(self, offsets: Sequence[Any]) -> tuple[Value, ...]:
        """Block pointer offsets as int32 scalars (as Triton keeps them)."""
        out = []
        for o in offsets:
            v = self.value_arg(o, "an offset")
            if shape_of(v.type) or not element_of(v.type).is_int:
                raise self.error(f"block pointer offsets must be integer scalars, got {v.type}", "pass integer offsets")
            out.append(self.convert(v, ir.int32))
        return tuple(out)

    def b_advance(self, base: Any, offsets: Any) -> BlockPointer:
        if not isinstance(base, BlockPointer):
            raise self.error(f"tl.advance moves a block pointer, got {getattr(base, 'type', base)!r}",
                             "make one with tl.make_block_ptr (for pointer tiles, add the offsets: ptrs + delta)")
        deltas = tuple(offsets) if isinstance(offsets, (tuple, list)) else (offsets,)
        if len(deltas) != len(base.offsets):
            raise self.error(f"tl.advance got {len(deltas)} offsets for a block pointer of rank {len(base.offsets)}",
                             "give one offset per axis")
        moved = [self.binary("add", operator.add, o, d) for o, d in zip(base.offsets, deltas)]
        return replace(base, offsets=self.block_offsets(moved))

    def block_access(self, bp: BlockPointer, boundary_check: Any, what: str) -> tuple[Value, Value | None]:
        """The pointer tile of block pointer `bp` and, for the checked axes, the mask of the elements inside
        the tensor (0 <= offset + i < shape along each)."""
        rank = len(bp.block_shape)
        checked = tuple(boundary_check) if isinstance(boundary_check, (tuple, list)) else (boundary_check,)
        for axis in checked:
            if not isinstance(axis, int) or not 0 <= axis < rank:
                raise self.error(f"{what}'s boundary_check {list(checked)} names an axis out of range for a block "
                                 f"pointer of rank {rank}", f"list axes in 0..{rank - 1}")
        ptr, mask = bp.base, None
        for axis, (size, offset) in enumerate(zip(bp.block_shape, bp.offsets)):
            index = self.binary("add", operator.add, offset, self.b_arange(0, size))
            for _ in builtins.range(rank - 1 - axis):
                index = self.expand_dims(index, len(shape_of(index.type)))
            ptr = self.binary("add", operator.add, ptr, self.binary("mul", operator.mul, index, bp.strides[axis]))
            if axis in checked:
                inside = self.logical("and", self.binary("ge", operator.ge, index, 0),
                                      self.binary("lt", operator.lt, index, bp.shape[axis]))
                mask = inside if mask is None else self.logical("and", mask, inside)
        return self.broadcast(ptr, bp.block_shape), mask

    def b_load(self, pointer: Any, mask: Any, other: Any, boundary_check: Any, padding_option: Any,
               cache_modifier: Any, eviction_policy: Any, volatile: Any) -> Value:
        if isinstance(pointer, BlockPointer):
            if mask is not None or other is not None:
                raise self.error("tl.load of a block pointer takes boundary_check and padding_option, not mask and "
                                 "other", "drop mask=/other= and pass boundary_check=(axes...)")
            if padding_option not in ("", "zero", "nan"):
                raise self.error(f"padding_option={padding_option!r} is not one of '', 'zero' and 'nan'",
                                 "pass padding_option='zero' or 'nan'")
            e = pointer.dtype.element
            if padding_option == "nan" and not e.is_float:
                raise self.error(f"padding_option='nan' needs a floating-point block pointer, got {e!r}",
                                 "pad integers with padding_option='zero'")
            pointer, mask = self.block_access(pointer, boundary_check, "tl.load")
            if mask is not None and padding_option == "nan":
                other = float("nan")
        elif boundary_check or padding_option:
            raise self.error("boundary_check and padding_option apply to block pointers (tl.make_block_ptr)",
                             "mask pointer tiles with mask= and other=, or load through tl.make_block_ptr")
        p, e = self.pointer_arg(pointer, "tl.load")
        m = self.mask_arg(mask)
        t = semantic.load(p.type, None if m is None else m.type)
        shape = shape_of(t)
        operands = [self.broadcast(p, shape)] + ([self.broadcast(m, shape)] if m is not None else [])
        if other is not None:
            if m is None:
                raise self.error("tl.load got `other` without `mask`", "pass mask= too, or drop other=")
            o = self.convert(self.value_arg(other, "other"), e) if isinstance(other, Value) else self.constant(other, e)
            operands.append(self.broadcast(o, shape))
        return self.emit1("load", operands, t, masked=m is not None, has_other=other is not None)

    def b_store(self, pointer: Any, value: Any, mask: Any, boundary_check: Any, cache_modifier: Any,
                eviction_policy: Any) -> None:
        if isinstance(pointer, BlockPointer):
            if mask is not None:
                raise self.error("tl.store to a block pointer takes boundary_check, not mask",
                                 "drop mask= and pass boundary_check=(axes...)")
            pointer, mask = self.block_access(pointer, boundary_check, "tl.store")
        elif boundary_check:
            raise self.error("boundary_check applies to block pointers (tl.make_block_ptr)",
                             "mask pointer tiles with mask=, or store through tl.make_block_ptr")
        p, e = self.pointer_arg(pointer, "tl.store")
        if isinstance(value, Value) and e.is_bool and element_of(value.type) != ir.int1:
            value = self.convert(value, ir.int8)  # Triton stores bools as bytes: value -> int8 -> != 0
        v = self.convert(value, e) if isinstance(value, Value) else self.constant(self.const_arg(value, "value",
                                                                                              Number), e)
        m = self.mask_arg(mask)
        semantic.store(p.type, v.type, None if m is None else m.type)
        shape = shape_of(p.type)
        operands = [p, self.broadcast(v, shape)] + ([self.broadcast(m, shape)] if m is not None else [])
        self.emit("store", operands, [], {"masked": m is not None})

    def atomic(self, kind: str, pointer: Any, vals: list[Any], mask: Any, sem: Any, scope: Any) -> Value:
        p, e = self.pointer_arg(pointer, f"tl.atomic_{kind}")
        shape = shape_of(p.type)
        m = self.mask_arg(mask)
        operands = [p]
        for v in vals:
            v = self.convert(v, e) if isinstance(v, Value) else self.constant(self.const_arg(v, "val", Number), e)
            semantic.store(p.type, v.type, None if m is None else m.type)
            operands.append(self.broadcast(v, shape))
        if m is not None:
            operands.append(self.broadcast(m, shape))
        return self.emit1(f"atomic_{kind}", operands, make_type(e, shape), masked=m is not None, sem=sem, scope=scope)

    def b_atomic_add(self, pointer: Any, val: Any, mask: Any, sem: Any, scope: Any) -> Value:
        return self.atomic("add", pointer, [val], mask, sem, scope)

    def b_atomic_max(self, pointer: Any, val: Any, mask: Any, sem: Any, scope: Any) -> Value:
        return self.atomic("max", pointer, [val], mask, sem, scope)

    def b_atomic_min(self, pointer: Any, val: Any, mask: Any, sem: Any, scope: Any) -> Value:
        return self.atomic("min", pointer, [val], mask, sem, scope)

    def b_atomic_xchg(self, pointer: Any, val: Any, mask: Any, sem: Any, scope: Any) -> Value:
        return self.atomic("xchg", pointer, [val], mask, sem, scope)

    def b_atomic_cas(self, pointer: Any, cmp: Any, val: Any, sem: Any, scope: Any) -> Value:
        return self.atomic("cas", pointer, [cmp, val], None, sem, scope)

    def bitwise_atomic(self, kind: str, pointer: Any, val: Any, mask: Any, sem: Any, scope: Any) -> Value:
        """tl.atomic_and/or/xor: on 32-bit integers, as Metal's atomic_fetch_and/or/xor_explicit take them
        (Triton takes 64-bit ones too; Metal has no 64-bit atomics, and 16-bit ones would go through the
        compare-and-swap words of check_atomic_outputs, which have no bitwise forms)."""
        _, e = self.pointer_arg(pointer, f"tl.atomic_{kind}")
        if e not in (ir.int32, ir.uint32):
            raise self.error(f"tl.atomic_{kind} on {e!r} is not supported: it takes int32 and uint32 (Triton refuses "
                             "floats too; Metal has no 64-bit or 16-bit bitwise atomics)",
                             "keep the bits in an int32 or uint32 output (tl.atomic_cas in a loop for other types)")
        return self.atomic(kind, pointer, [val], mask, sem, scope)

    def b_atomic_and(self, pointer: Any, val: Any, mask: Any, sem: Any, scope: Any) -> Value:
        return self.bitwise_atomic("and", pointer, val, mask, sem, scope)

    def b_atomic_or(self, pointer: Any, val: Any, mask: Any, sem: Any, scope: Any) -> Value:
        return self.bitwise_atomic("or", pointer, val, mask, sem, scope)

    def b_atomic_xor(self, pointer: Any, val: Any, mask: Any, sem: Any, scope: Any) -> Value:
        return self.bitwise_atomic("xor", pointer, val, mask, sem, scope)

    def b_dot(self, input: Any, other: Any, acc: Any, input_precision: Any, allow_tf32: Any,
              max_num_imprecise_acc: Any, out_dtype: Any) -> Value:
        """Triton's rules (semantic.dot): [M, K] @ [K, N], or batched [B, M, K] @ [B, K, N]; int8 operands
        accumulate in int32 (`out_dtype` int32, or the default), float32 and bfloat16 ones in float32
        whatever `out_dtype`, float16 ones in `out_dtype` (float32, or float16: accumulated in float16);
        `acc` has the result's type."""
        a, b = self.value_arg(input, "input"), self.value_arg(other, "other")
        sa, sb = shape_of(a.type), shape_of(b.type)
        if len(sa) != len(sb) or len(sa) not in (2, 3) or sa[-1] != sb[-2] or sa[:-2] != sb[:-2]:
            raise self.error(f"tl.dot needs [M, K] and [K, N] tiles, or [B, M, K] and [B, K, N], got {list(sa)} "
                             f"and {list(sb)}", "transpose or reshape the operands")
        if min(sa[-2], sa[-1], sb[-1]) < 8:
            raise self.error(f"tl.dot needs tiles of at least 8 in every dimension (Metal's simdgroup matrices are "
                             f"8x8), got [{sa[-2]}, {sa[-1]}] @ [{sb[-2]}, {sb[-1]}]",
                             "use BLOCK sizes of 8 or more and mask the edges")
        element = element_of(a.type)
        if element != element_of(b.type):
            raise self.error(f"tl.dot operands differ in type: {element!r} and {element_of(b.type)!r}",
                             "convert one operand with .to(...)")
        requested = self.dtype_arg(out_dtype)
        if element.is_int and element != ir.int8:
            raise self.error(f"tl.dot on {element!r} tiles is not supported: integer products take int8 operands "
                             "(accumulated in int32), as Triton", "convert the operands with .to(tl.int8) if their "
                             "values fit, else with .to(tl.float32)")
        if element not in (ir.int8, ir.float32, ir.float16, ir.bfloat16):
            raise self.error(f"tl.dot on {element!r} tiles is not supported", "convert the operands with "
                             ".to(tl.float16) or .to(tl.float32)")
        allowed = (ir.int32, ir.float32) if element.is_int else (ir.float32, ir.float16)
        if requested not in allowed:
            raise self.error(f"tl.dot(out_dtype={requested!r}) on {element!r} tiles is not supported: the result is "
                             "int32 for int8 operands, float16 or float32 for float16 ones and float32 otherwise (as "
                             "Triton)", "pass out_dtype=tl.float32 (tl.int32 for int8 operands) and convert the "
                             "result with .to(...)")
        out = ir.int32 if element.is_int else requested if element == ir.float16 else ir.float32
        t = make_type(out, (*sa[:-1], sb[-1]))
        operands = [a, b]
        if acc is not None:
            c = self.value_arg(acc, "acc")
            if c.type != t:
                raise self.error(f"tl.dot accumulator is {c.type}, expected {t}", "initialise it with tl.zeros of "
                                 "the result's shape and type (int32 for int8 operands, out_dtype for float16 ones)")
            operands.append(c)
        return self.emit1("dot", operands, t)

    def b_static_assert(self, cond: Any, msg: Any) -> None:
        if isinstance(cond, Value):
            raise self.error("tl.static_assert needs a constexpr condition",
                             "assert only on constexpr values (parameters annotated tl.constexpr)")
        if not cond:
            raise self.error(f"static_assert failed{': ' + msg if msg else ''}",
                             "launch the kernel with constexpr values that satisfy the assertion")

    def b_device_print(self, prefix: Any, args: tuple[Any, ...], hex: Any) -> None:
        self.const_arg(prefix, "prefix", str)
        self.emit("print", [self.value_arg(a, "a printed value") for a in args], [], {"prefix": prefix,
                                                                                       "hex": bool(hex)})

    def b_device_assert(self, cond: Any, msg: Any, mask: Any) -> None:
        self.device_check(cond, self.const_arg(msg, "msg", str), mask, "tl.device_assert")

    def b_assume(self, cond: Any) -> None:
        self.device_check(cond, "", None, "tl.assume")

    def device_check(self, cond: Any, msg: str, mask: Any, what: str) -> None:
        """tl.device_assert and tl.assume: the condition type-checked always, checked at run time only
        in a kernel built with debug on (as Triton, whose asserts exist only with TRITON_DEBUG)."""
        if not isinstance(cond, Value):
            cond = self.constant(self.const_arg(cond, "cond", (bool, int)), ir.int1)
        c = self.convert(cond, ir.int1)
        m = self.mask_arg(mask)
        if not self.kernel.debug:
            return
        shape = shape_of(c.type) or (shape_of(m.type) if m is not None else ())
        operands = [self.broadcast(c, shape) if shape else c] + ([self.broadcast(m, shape) if shape else m]
                                                                 if m is not None else [])
        self.emit("assert", operands, [], {"msg": msg, "what": what, "masked": m is not None})

    def b_multiple_of(self, input: Any, values: Any) -> Value:
        x = self.value_arg(input, "input")
        return self.emit1("multiple_of", [x], x.type, values=self.const_arg(values, "values", (int, tuple, list)))

    def b_max_contiguous(self, input: Any, values: Any) -> Value:
        x = self.value_arg(input, "input")
        return self.emit1("max_contiguous", [x], x.type, values=self.const_arg(values, "values", (int, tuple, list)))

    def b_debug_barrier(self) -> None:
        self.emit("barrier", [])

    def b_philox(self, seed: Any, c0: Any, c1: Any, c2: Any, c3: Any, n_rounds: Any) -> tuple[Value, ...]:
        """Triton's philox for 32-bit counters: the seed as 64 bits (Triton's .to(tl.uint64): the same bits as
        int64), the counters' bits as uint32, broadcast together; one op per word of the result."""
        s = self.value_arg(seed, "seed")
        if shape_of(s.type) or not element_of(s.type).is_int:
            raise self.error(f"tl.philox needs an integer scalar seed, got {s.type}", "pass the seed as an int")
        counters = [self.value_arg(c, "a counter") for c in (c0, c1, c2, c3)]
        for c in counters:
            e = element_of(c.type)
            if not e.is_int or e.bits != 32:
                raise self.error(f"tl.philox takes 32-bit integer counters here, got {c.type} (Triton's 64-bit "
                                 "Philox is not supported)", "pass int32 or uint32 counters, e.g. offsets.to(tl.uint32)")
        shape = ()
        for c in counters:
            shape = semantic.broadcast_shapes(shape, shape_of(c.type))
        operands = [self.convert(s, ir.int64), *(self.broadcast(self.convert(c, ir.uint32), shape) for c in counters)]
        rounds = self.const_arg(n_rounds, "n_rounds")
        return tuple(self.emit1("philox", operands, make_type(ir.uint32, shape), n_rounds=rounds, word=i)
                     for i in range(4))

for _name in ("exp", "exp2", "log", "log2", "sqrt", "rsqrt", "sin", "cos", "erf", "floor", "ceil", "sigmoid", "abs"):
    setattr(_Builder, f"b_{_name}", lambda self, x, _n=_name: self.math(_n, x))
