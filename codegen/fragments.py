"""The matrix instructions a target multiplies tiles with, as layout facts: which elements of the A
(rows x depth), B (depth x cols) and C (rows x cols) fragments each lane of a simdgroup holds.

`tl.dot` results take the `MMA` layout of the chosen fragment (codegen/layouts.py), and the dot
lowering (codegen/lowering/dot.py) fills operand fragments element by element from threadgroup
memory at these coordinates, so the same pass serves every target; only the instruction's spelling
differs (the renderers' templates).
"""
from __future__ import annotations

from dataclasses import dataclass

from ..dsl import ir
from .lir import Expr, Special
from .layouts import add, div, lit, mod, mul_
from .target import Target


@dataclass(frozen=True)
class Fragment:
    name: str
    rows: int
    cols: int
    depth: int
    per_lane: tuple[int, int, int]  # elements of A, B, C each lane holds
    exact_inputs: bool              # operands are converted to float32 (else they keep the input type)
    row_lanes: tuple[int, ...]      # xor offsets from a lane to the others holding C elements of its rows
    column_lanes: tuple[int, ...]   # ... and of its columns
    c_grid: tuple[int, int]         # a lane's C elements as (rows, columns): element e at (e // cols, e % cols)

    def lane_values(self) -> list[tuple[str, Expr]]:
        """Per-lane quantities the coordinates are built from, as (name, expression)."""
        raise NotImplementedError

    def coord(self, role: str, e: Expr, lane: list[Expr] | None = None) -> tuple[Expr, Expr]:
        """(row, column) inside the fragment of this lane's element `e` (a literal, or an expression
        for the accumulator's slots) of operand `role` (a, b or c); `lane` replaces `lane_values()`
        by named variables holding them."""
        raise NotImplementedError

    def operand_type(self, element: ir.ScalarType) -> ir.ScalarType:
        return ir.float32 if self.exact_inputs else element

    def matrix_load(self, role: str, contiguous: int, pair: bool = False) -> "LaneAddress | None":
        """How one instruction loads this lane's elements of a `role` (a or b) fragment from
        threadgroup memory whose operand axis `contiguous` (0: rows, 1: columns) has stride 1
        (with `pair`, of two fragments at once where the target's instruction holds both);
        None where the target has none (the elements are then read one by one)."""
        return None


@dataclass(frozen=True)
class LaneAddress:
    """A matrix load: each lane gives the address of operand element (row, col) of the fragment
    (16-byte aligned rows of 8 elements); `count` 8x8 matrices, transposed on the way or not. A
    load of two neighbouring fragments (`neighbour` not None) has each lane address element
    (row, col) of fragment `i + neighbour` (0 or 1) of the pair starting at fragment i."""
    row: Expr
    col: Expr
    count: int
    transpose: bool
    neighbour: Expr | None = None


class SimdgroupMatrix(Fragment):
    """Metal's simdgroup_matrix 8x8: lane l holds row (l/16)*4 + (l/2)%4, columns ((l/8)%2)*4 +
    (l%2)*2 and the next one, in all three operands (Steel's BaseMMAFrag::get_coord)."""

    def __init__(self) -> None:
        super().__init__("simdgroup8x8", 8, 8, 8, (2, 2, 2), True, (1, 8), (2, 4, 16), (1, 2))

    def lane_values(self):
        lane = Special("lane")
        return [("frag_row", add(mul_(div(lane, 16), lit(4)), mod(div(lane, 2), 4))),
                ("frag_col", add(mul_(mod(div(lane, 8), 2), lit(4)), mul_(mod(lane, 2), lit(2))))]

    def coord(self, role, e, lane=None):
        row, col = lane or [v for _, v in self.lane_values()]
        return row, add(col, e)


class TensorCoreM16N8K16(Fragment):
    """NVIDIA's mma.sync m16n8k16 (fp16/bf16 in, fp32 accumulate): with g = lane/4, t = lane%4,
    A element e is at (g + 8*((e/2)%2), 2t + e%2 + 8*(e/4)), B at (2t + e%2 + 8*(e/2), g) and C at
    (g + 8*(e/2), 2t + e%2) (PTX ISA, "Matrix Fragments for mma.m16n8k16")."""

    def __init__(self) -> None:
        super().__init__("m16n8k16", 16, 8, 16, (8, 4, 4), False, (1, 2), (4, 8, 16), (2, 2))

    def lane_values(self):
        lane = Special("lane")
        return [("mma_group", div(lane, 4)), ("mma_thread", mod(lane, 4))]

    def coord(self, role, e, lane=None):
        g, t = lane or [v for _, v in self.lane_values()]
        pair = add(mul_(t, lit(2)), mod(e, 2))
        if role == "a":
            return add(g, mul_(mod(div(e, 2), 2), lit(8))), add(pair, mul_(div(e, 4), lit(8)))
        if role == "b":
            return add(pair, mul_(div(e, 2), lit(8))), g
        return add(g, mul_(div(e, 2), lit(8))), pair

    def matrix_load(self, role, contiguous, pair=False):
        """ldmatrix: 8x8 matrices of 16-byte rows, matrix q addressed by lanes 8q..8q+7. A lane of
        the mma holds 2 neighbours of the "depth" axis at (g, 2t) of its 8x8 block: along A's
        columns, along B's rows. A is 4 matrices (row block, depth block) = (0,0), (1,0), (0,1),
        (1,1); B is 2, depth blocks 0 and 1, and a pair of B fragments is 4 (fragment, depth block)
        = (0,0), (0,1), (1,0), (1,1) in one .x4 (CUTLASS's and Triton's B load: 3 ldmatrix per
        16x16 A block and two 16x8 B fragments instead of 4). Stored with the depth axis contiguous
        the rows are read as they are; with the other axis contiguous, transposed (`.trans`)."""
        lane = Special("lane")
        paired = role == "b" and pair
        count = 4 if role == "a" or paired else 2
        q, r = mod(div(lane, 8), count), mod(lane, 8)
        depth_axis = 1 if role == "a" else 0
        block = mod(q, 2) if role == "a" else lit(0)   # block along the non-depth axis
        depth_block = div(q, 2) if role == "a" else mod(q, 2)
        if contiguous == depth_axis:
            other, depth = add(mul_(block, lit(8)), r), mul_(depth_block, lit(8))
        else:
            other, depth = mul_(block, lit(8)), add(mul_(depth_block, lit(8)), r)
        row, col = (other, depth) if role == "a" else (depth, other)
        return LaneAddress(row, col, count, contiguous != depth_axis, div(q, 2) if paired else None)


SIMDGROUP_MATRIX = SimdgroupMatrix()
TENSOR_CORE = TensorCoreM16N8K16()


FRAGMENT_TYPES = (ir.float32, ir.float16, ir.bfloat16)


def on_fragments(operand: ir.ScalarType, result: ir.ScalarType, rank: int) -> bool:
    """Whether a `tl.dot` of `operand` tiles with a `result` tile of `rank` runs on matrix fragments:
    2-D products of float32, float16 or bfloat16 accumulated in float32. Metal's simdgroup matrices
    have no integer type and no batch axis, and accumulating in float16 (Triton's `out_dtype=float16`)
    would need half accumulator fragments on both targets: those dots (int8 -> int32, float16 ->
    float16, [B, M, K] @ [B, K, N]) run as per-thread multiply-adds (lowering/dot.py, `lower_fma_dot`)."""
    return rank == 2 and operand in FRAGMENT_TYPES and result == ir.float32


def fragment_for(target: Target, element: ir.ScalarType, shape: tuple[int, int, int]) -> Fragment:
    """The instruction a `tl.dot` of `element` operands and [M, K] @ [K, N] = `shape` (M, N, K) uses:
    tensor cores on CUDA for fp16/bf16 tiles they divide, Metal's 8x8 simdgroup matrices otherwise
    (on CUDA spelled with warp shuffles and exact fp32 FMAs)."""
    m, n, k = shape
    if (element in target.tensor_core_elements
            and m % TENSOR_CORE.rows == 0 and n % TENSOR_CORE.cols == 0 and k % TENSOR_CORE.depth == 0):
        return TENSOR_CORE
    return SIMDGROUP_MATRIX
