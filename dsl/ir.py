"""The typed tile IR that the front end builds and the passes rewrite.

A kernel is a `Function` whose body is a `Block` of `Operation`s in SSA form. Every `Value` has a
type: a scalar element type, a pointer to one, or a block (tile) of either with a static shape.
Scalars are rank-0: their type is the element type itself, as in Triton, so "is this a tile" is
just `isinstance(t, BlockType)`. Control flow is structured (scf-style ops that own nested
`Block`s) so later passes never have to rebuild loops from a CFG. Each operation remembers the
Python line it came from, because passes and generated MSL are shown to users in terms of their
own source.
"""
from __future__ import annotations

import itertools
from dataclasses import dataclass, field
from typing import Any, Iterator, Union

# Names a runtime argument cannot take, since both targets spell an argument by its name: the generated C++'s
# keywords (Metal Shading Language's address spaces, types and namespace among them), the thread-position
# builtins it reads, and metalforge's own prefix (its helpers and locals)
GENERATED_NAMES = frozenset({
    "kernel", "device", "constant", "threadgroup", "thread", "float", "half", "bfloat", "double", "int", "uint",
    "bool", "char", "short", "long", "signed", "unsigned", "switch", "case", "default", "struct", "class", "union",
    "enum", "const", "static", "auto", "void", "true", "false", "this", "new", "delete", "template", "typename",
    "using", "namespace", "operator", "sizeof", "volatile", "inline", "extern", "register", "goto", "friend",
    "private", "public", "protected", "virtual", "explicit", "mutable", "typedef", "do", "metal",
    "thread_index_in_threadgroup", "thread_index_in_simdgroup", "simdgroup_index_in_threadgroup",
    "threadgroup_position_in_grid", "threadgroups_per_grid", "threadIdx", "blockIdx", "blockDim", "gridDim"})
GENERATED_PREFIX = "mf_"


@dataclass(frozen=True)
class ScalarType:
    """An element type. `tl.float32` etc. are instances, so user code and the IR share one object."""

    name: str  # Triton's spelling, e.g. "float16"
    bits: int
    signed: bool
    is_float: bool
    short: str  # printed form, e.g. "f16"

    @property
    def is_int(self) -> bool:
        return not self.is_float

    @property
    def primitive_bitwidth(self) -> int:
        """Triton's name for `bits` (its random.py reads it)."""
        return self.bits

    @property
    def is_bool(self) -> bool:
        return self.name == "int1"

    @property
    def is_unsigned(self) -> bool:
        return self.is_int and not self.signed

    @property
    def kind(self) -> int:
        """bool < integer < float: the order Triton uses to decide whether a Python scalar promotes."""
        return 0 if self.is_bool else (1 if self.is_int else 2)

    def int_range(self) -> tuple[int, int]:
        if self.is_bool:
            return 0, 1
        if self.signed:
            return -(1 << (self.bits - 1)), (1 << (self.bits - 1)) - 1
        return 0, (1 << self.bits) - 1

    def __str__(self) -> str:
        return self.short

    def __repr__(self) -> str:
        return f"tl.{self.name}"


def _int(bits: int, signed: bool) -> ScalarType:
    return ScalarType(f"{'' if signed else 'u'}int{bits}", bits, signed, False, f"{'i' if signed else 'u'}{bits}")


int1 = ScalarType("int1", 1, True, False, "i1")
int8, int16, int32, int64 = (_int(b, True) for b in (8, 16, 32, 64))
uint8, uint16, uint32, uint64 = (_int(b, False) for b in (8, 16, 32, 64))
float16 = ScalarType("float16", 16, True, True, "f16")
bfloat16 = ScalarType("bfloat16", 16, True, True, "bf16")
float32 = ScalarType("float32", 32, True, True, "f32")
float64 = ScalarType("float64", 64, True, True, "f64")  # named only so that using it gets a clear error

SCALAR_TYPES: dict[str, ScalarType] = {t.name: t for t in (
    int1, int8, int16, int32, int64, uint8, uint16, uint32, uint64, float16, bfloat16, float32, float64)}


@dataclass(frozen=True)
class PointerType:
    """A device pointer (address space `device`) to elements of `element`."""

    element: ScalarType

    @property
    def element_ty(self) -> ScalarType:
        """Triton's name for the pointee type (`ptr.dtype.element_ty`)."""
        return self.element

    def __str__(self) -> str:
        return f"ptr<{self.element}>"


Element = Union[ScalarType, PointerType]


@dataclass(frozen=True)
class BlockType:
    """A tile: `shape` elements of `element`, distributed over a threadgroup by later passes."""

    element: Element
    shape: tuple[int, ...]

    def __post_init__(self) -> None:
        if not self.shape:
            raise ValueError("a block type needs a non-empty shape; scalars use the element type itself")

    @property
    def numel(self) -> int:
        n = 1
        for s in self.shape:
            n *= s
        return n

    def __str__(self) -> str:
        return f"{self.element}[{','.join(map(str, self.shape))}]"


Type = Union[ScalarType, PointerType, BlockType]


def element_of(t: Type) -> Element:
    return t.element if isinstance(t, BlockType) else t


def shape_of(t: Type) -> tuple[int, ...]:
    return t.shape if isinstance(t, BlockType) else ()


def make_type(element: Element, shape: tuple[int, ...]) -> Type:
    """The type of `shape` elements of `element`; rank 0 gives the element type itself."""
    return BlockType(element, tuple(shape)) if shape else element


def ptr(element: ScalarType) -> PointerType:
    return PointerType(element)


_ids = itertools.count()


class Value:
    """An SSA value. `name` is a hint from the user's variable, kept for readable IR and MSL."""

    __slots__ = ("type", "name", "id")

    def __init__(self, type: Type, name: str | None = None) -> None:
        self.type = type
        self.name = name
        self.id = next(_ids)

    def __repr__(self) -> str:
        return f"%{self.name or self.id}: {self.type}"


@dataclass(frozen=True)
class Loc:
    """Where an operation came from: used in error messages, IR dumps and MSL comments."""

    file: str
    line: int
    source: str  # the stripped Python line

    def __str__(self) -> str:
        return f"{self.file}:{self.line}"


@dataclass
class Block:
    """A list of operations with block arguments (loop induction variables, loop-carried values)."""

    args: list[Value] = field(default_factory=list)
    ops: list[Operation] = field(default_factory=list)


def walk_block(block: Block) -> Iterator[Operation]:
    """Every operation of `block`, nested regions included, in program order."""
    for op in block.ops:
        yield op
        for region in op.regions:
            yield from walk_block(region)


@dataclass
class Operation:
    """One IR operation. Structured control flow (`for`, `while`, `if`, `reduce`, `scan`) owns `regions`.

    Region conventions:
      for:    operands [lower, upper, step, *inits]; region 0 args [iv, *carried], ends in `yield`.
      while:  operands [*inits]; region 0 (before) args [*carried] ends in `condition` [cond, *carried];
              region 1 (after) args [*carried] ends in `yield`.
      if:     operands [cond]; regions then/else each end in `yield` with one value per result.
      reduce/scan: operands [*inputs] (one shape); region 0 args [*a, *b] (scalars, one per input each)
              ends in `yield` [*combined]; one result per input.
    """

    opcode: str
    operands: list[Value]
    results: list[Value]
    attrs: dict[str, Any] = field(default_factory=dict)
    loc: Loc | None = None
    regions: list[Block] = field(default_factory=list)

    @property
    def result(self) -> Value:
        (r,) = self.results
        return r


@dataclass
class Function:
    """A kernel specialised for argument types and constexpr values."""

    name: str
    args: list[Value]
    constexprs: dict[str, Any]
    body: Block
    file: str = ""

    def walk(self) -> Iterator[Operation]:
        """Every operation, nested regions included, in program order."""
        return walk_block(self.body)

    def __str__(self) -> str:
        return _Printer().function(self)


class _Printer:
    """Text form: one op per line with result types, and the Python line it came from."""

    COMMENT_COLUMN = 64

    def __init__(self) -> None:
        self.names: dict[int, str] = {}
        self.taken: set[str] = set()
        self.unnamed = 0
        self.lines: list[str] = []

    def name(self, v: Value) -> str:
        """`%var` for values named after user variables (`%var.1` when reassigned), else `%0`, `%1`..."""
        if v.id not in self.names:
            if v.name is None:
                candidate = str(self.unnamed)
                self.unnamed += 1
            else:
                candidate, n = v.name, 0
                while candidate in self.taken:
                    n += 1
                    candidate = f"{v.name}.{n}"
            self.taken.add(candidate)
            self.names[v.id] = "%" + candidate
        return self.names[v.id]

    def typed(self, vs: list[Value]) -> str:
        return ", ".join(f"{self.name(v)}: {v.type}" for v in vs)

    def function(self, fn: Function) -> str:
        consts = ", ".join(f"{k}={v!r}" for k, v in fn.constexprs.items())
        self.lines.append(f"kernel {fn.name}({self.typed(fn.args)})" + (f" [{consts}]" if consts else "") + " {")
        self.block(fn.body, 1)
        self.lines.append("}")
        return "\n".join(self.lines)

    def emit(self, text: str, depth: int, loc: Loc | None) -> None:
        line = "  " * depth + text
        if loc is not None:
            line = line.ljust(self.COMMENT_COLUMN) + f"  # {loc.line}: {loc.source}"
        self.lines.append(line)

    def block(self, block: Block, depth: int) -> None:
        for op in block.ops:
            self.op(op, depth)

    def op(self, op: Operation, depth: int) -> None:
        lhs = f"{self.typed(op.results)} = " if op.results else ""
        ops = ", ".join(self.name(v) for v in op.operands)
        attrs = "{" + ", ".join(f"{k}={v!r}" for k, v in op.attrs.items()) + "}" if op.attrs else ""
        call = " ".join(p for p in (op.opcode, ops, attrs) if p)
        if op.opcode == "for":
            body = op.regions[0]
            iv, carried = body.args[0], body.args[1:]
            inits = ", ".join(f"{self.name(a)} = {self.name(v)}" for a, v in zip(carried, op.operands[3:]))
            lo, hi, step = (self.name(v) for v in op.operands[:3])
            head = f"{lhs}for {self.name(iv)}: {iv.type} in [{lo}, {hi}) step {step}"
            self.emit(head + (f" carry({inits})" if inits else "") + " {", depth, op.loc)
            self.block(body, depth + 1)
        elif op.opcode == "while":
            inits = ", ".join(f"{self.name(a)} = {self.name(v)}" for a, v in zip(op.regions[0].args, op.operands))
            self.emit(f"{lhs}while carry({inits}) {{", depth, op.loc)
            self.block(op.regions[0], depth + 1)
            self.emit(f"}} do ({self.typed(op.regions[1].args)}) {{", depth, None)
            self.block(op.regions[1], depth + 1)
        elif op.opcode == "if":
            self.emit(f"{lhs}if {ops} {{", depth, op.loc)
            self.block(op.regions[0], depth + 1)
            self.emit("} else {", depth, None)
            self.block(op.regions[1], depth + 1)
        elif op.regions:
            self.emit(f"{lhs}{call} ({self.typed(op.regions[0].args)}) {{", depth, op.loc)
            self.block(op.regions[0], depth + 1)
        else:
            self.emit(lhs + call, depth, op.loc)
            return
        self.emit("}", depth, None)
