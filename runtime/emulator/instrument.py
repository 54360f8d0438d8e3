"""Rewrites a kernel's unoptimised LLVM IR before it is optimised: integer division, and checked mode.

Integer division and remainder by zero, and INT_MIN / -1, are undefined in C++ (x86 raises SIGFPE,
which would kill Python) and unspecified on the GPU (no trap). Every such instruction whose divisor
is not a safe constant is rewritten to give defined values: x / 0 = -1 (all bits set), x % 0 = x,
INT_MIN / -1 = INT_MIN, INT_MIN % -1 = 0 (the two's-complement wrap).

In checked mode every load, store and memcpy/memset through a `device` (address space 1) or
`constant` (2) pointer is preceded by a call to `mfemu_check_access` (shim/mfemu/checks.h) with the
access's size, the alignment the compiler assumed and the source line from the debug locations
(-gline-tables-only), and every rewritten division first calls `mfemu_check_division`. Both are
inlined by the optimiser that runs after this pass.

The optimiser may not assume that loops end (C++'s forward-progress rule, `mustprogress`, would let
it delete a loop that never ends and has no other effect), so that `poll_loops`, which runs on the
optimised IR, can give every loop a stop check: after every branch back to an earlier block (each
cycle of the control flow has one), the kernel reads the runtime's `mfemu_stop` and, once the
watchdog or Ctrl-C has raised it, calls `mfemu_stopped` with the source line, which ends the launch.
Checking after optimisation keeps loops vectorised (a volatile read in a loop body prevents that; it
cost 1.8x on a dot-product loop) and costs one read per iteration of the vectorised loop.
"""
from __future__ import annotations

import os
import re
from dataclasses import dataclass

from .counters import ACCESS_BLOCK

CHECKED_SPACES = ("1", "2")  # device, constant
COUNTED_SPACES = ("1", "2", "3")  # device, constant, threadgroup: counters.SPACES' order
_CONSTANT_SPACE = "2"
ACCESS_WRITE, ACCESS_CONSTANT = 1, 2  # shim/mfemu/abi.h AccessFlags
UNKNOWN_FILE = 0xFF                    # a site in a header outside the kernel and the shim

_INSTRUCTION = re.compile(r"^(?P<indent>\s+)(?:(?P<result>%[-\w.$]+|%\"[^\"]*\") = )?(?P<op>(?:tail |musttail |notail )?\w+)\b(?P<rest>.*)$")
_DBG = re.compile(r", !dbg (![0-9]+)")
_POINTER = re.compile(r"^ptr addrspace\((?P<space>\d+)\)\s+(?P<attrs>(?:(?:noundef|nonnull|nocapture|noalias|readonly|"
                      r"writeonly|align \d+|dereferenceable(?:_or_null)?\(\d+\))\s+)*)(?P<value>.+?)"
                      r"(?:\s+(?:syncscope\(\"[^\"]*\"\)\s+)?(?:unordered|monotonic|acquire|release|acq_rel|seq_cst)"
                      r"(?:\s+(?:unordered|monotonic|acquire|release|acq_rel|seq_cst))?)?$")
_MEM_INTRINSIC = re.compile(r"@llvm\.(?P<kind>memcpy|memmove|memset)(?:\.inline)?\.[\w.]+\((?P<args>.*)\)")
_DIVISION_OPS = ("sdiv", "udiv", "srem", "urem")
_LOCATION = re.compile(r"^!(\d+) = (?:distinct )?!DILocation\(line: (\d+), column: \d+, scope: !(\d+)")
_SCOPE_FILE = re.compile(r"^!(\d+) = (?:distinct )?!DI(?:Subprogram|LexicalBlock|LexicalBlockFile)\(.*?\bfile: !(\d+)")
_FILE = re.compile(r'^!(\d+) = !DIFile\(filename: "(?P<name>[^"]*)", directory: "(?P<dir>[^"]*)"')
_NAMED_TYPE = re.compile(r"^(%[-\w.$]+|%\"[^\"]*\") = type (.*)$")
_BLOCK_LABEL = re.compile(r"^(?P<label>[-\w.$]+|\"[^\"]*\"):")
_TARGET = re.compile(r"\blabel %([-\w.$]+|\"[^\"]*\")")
_TERMINATORS = ("br", "switch", "indirectbr")
_STOP_FLAG, _STOPPED = "@mfemu_stop", "@mfemu_stopped"  # shim/mfemu/abi.h


def split_top(text: str) -> list[str]:
    """`text` split at the commas outside brackets and quotes, each part stripped."""
    parts, depth, start, quoted = [], 0, 0, False
    for i, ch in enumerate(text):
        if ch == '"':
            quoted = not quoted
        elif quoted:
            continue
        elif ch in "([{<":
            depth += 1
        elif ch in ")]}>":
            depth -= 1
        elif ch == "," and depth == 0:
            parts.append(text[start:i].strip())
            start = i + 1
    parts.append(text[start:].strip())
    return parts


@dataclass
class _Layout:
    """Sizes of LLVM types on x86-64 (the named struct types come from the module)."""

    named: dict

    def parse(self, text: str, i: int = 0) -> tuple[int, int, int]:
        """(store size, alignment, end index) of the type starting at text[i]."""
        while text[i] == " ":
            i += 1
        m = re.compile(r"i(\d+)\b").match(text, i)
        if m:
            bits = int(m.group(1))
            size = (bits + 7) // 8
            return size, min(_pow2_at_least(size), 16), m.end()
        for name, size in (("half", 2), ("bfloat", 2), ("float", 4), ("double", 8), ("x86_fp80", 10), ("fp128", 16)):
            if text.startswith(name, i) and not (text[i + len(name):i + len(name) + 1].isalnum()):
                return size, 16 if size == 10 else size, i + len(name)
        m = re.compile(r"ptr(?: addrspace\(\d+\))?").match(text, i)
        if m:
            return 8, 8, m.end()
        m = re.compile(r"<(\d+) x ").match(text, i)
        if m:
            n = int(m.group(1))
            size, _, end = self.parse(text, m.end())
            total = (n + 7) // 8 if text.startswith("i1", m.end()) and text[m.end() + 2] == ">" else n * size
            return total, min(_pow2_at_least(total), 64), end + 1
        m = re.compile(r"\[(\d+) x ").match(text, i)
        if m:
            size, align, end = self.parse(text, m.end())
            return int(m.group(1)) * _round_up(size, align), align, end + 1
        if text.startswith("<{", i) or text.startswith("{", i):
            packed = text.startswith("<{", i)
            j = i + (2 if packed else 1)
            offset, align = 0, 1
            while True:
                while text[j] == " ":
                    j += 1
                if text[j] == "}":
                    j += 1
                    break
                size, a, j = self.parse(text, j)
                a = 1 if packed else a
                offset = _round_up(offset, a) + size
                align = max(align, a)
                while text[j] in " ,":
                    j += 1
            end = j + (1 if packed else 0)
            return _round_up(offset, align), align, end
        m = re.compile(r"%[-\w.$]+|%\"[^\"]*\"").match(text, i)
        if m:
            size, align, _ = self.parse(self.named[m.group(0)])
            return size, align, m.end()
        raise ValueError(f"unknown LLVM type at {text[i:i + 40]!r}")

    def size(self, text: str) -> int:
        return self.parse(text)[0]


def _pow2_at_least(n: int) -> int:
    return 1 << max(0, (n - 1).bit_length())


def _round_up(n: int, m: int) -> int:
    return (n + m - 1) // m * m


@dataclass
class _Sites:
    """Source lines of debug locations, encoded as (file << 24) | line for the runtime."""

    lines: dict  # !N -> encoded site

    @classmethod
    def parse(cls, ir: str, main_file: str, shim_files: list[str]) -> "_Sites":
        files, scopes, locations = {}, {}, {}
        for line in ir.splitlines():
            if not line.startswith("!"):
                continue
            if m := _FILE.match(line):
                files[m.group(1)] = _file_index(os.path.join(m.group("dir"), m.group("name")), main_file, shim_files)
            elif m := _SCOPE_FILE.match(line):
                scopes[m.group(1)] = m.group(2)
            elif m := _LOCATION.match(line):
                locations[m.group(1)] = (int(m.group(2)), m.group(3))
        lines = {}
        for node, (number, scope) in locations.items():
            index = files.get(scopes.get(scope, ""), UNKNOWN_FILE)
            lines["!" + node] = (index << 24) | min(number, 0xFFFFFF)
        return cls(lines)


def _file_index(path: str, main_file: str, shim_files: list[str]) -> int:
    """0 for the kernel's translation unit, 1 + the index of a shim header, else UNKNOWN_FILE."""
    path = os.path.normpath(path)
    if os.path.basename(path) == os.path.basename(main_file):
        return 0
    for k, name in enumerate(shim_files):
        if path.endswith(os.sep + name) or path == name:
            return k + 1
    return UNKNOWN_FILE


class _Rewriter:
    def __init__(self, ir: str, checked: bool, main_file: str, shim_files: list[str], counting: bool = False) -> None:
        self.checked, self.counting = checked, counting
        self.layout = _Layout({m.group(1): m.group(2) for m in map(_NAMED_TYPE.match, ir.splitlines()) if m})
        self.sites = _Sites.parse(ir, main_file, shim_files) if checked else _Sites({})
        self.counter = 0
        self.last_dbg = ""

    def fresh(self, stem: str) -> str:
        self.counter += 1
        return f"%mfemu.{stem}{self.counter}"

    def site_of(self, dbg: str) -> int:
        return self.sites.lines.get(dbg, UNKNOWN_FILE << 24)

    def rewrite_line(self, line: str) -> list[str]:
        m = _INSTRUCTION.match(line)
        if not m:
            return [line]
        dbg_match = _DBG.search(line)
        if dbg_match:
            self.last_dbg = dbg_match.group(1)
        op = m.group("op").split()[-1]
        if op in _DIVISION_OPS:
            return self.division(m, op) or [line]
        if not (self.checked or self.counting):
            return [line]
        accesses = self.memory_accesses(op, m.group("rest"))
        out: list[str] = []
        for pointer, size, align, flags in accesses:
            p = _POINTER.match(pointer.strip())
            space = p.group("space") if p else None
            # atomics are counted by the shim's atomic functions, which see their address space
            counted = self.counting and space in COUNTED_SPACES and op in ("load", "store", "call")
            checked = self.checked and space in CHECKED_SPACES
            if not (counted or checked):
                continue
            indent = m.group("indent")
            size_type, size_value = size.split(None, 1)
            if size_type != "i64":
                widened = self.fresh("n")
                out.append(f"{indent}{widened} = zext {size_type} {size_value} to i64")
                size_value = widened
            if counted:
                block = (COUNTED_SPACES.index(space) * 2 + (flags & ACCESS_WRITE)) * ACCESS_BLOCK
                out.append(f"{indent}call void @mfemu_count_access(i32 {block}, i64 {size_value}){self.dbg()}")
            if checked:
                out += self.memory_check(p, size_value, align, flags, indent)
        return out + [line]

    # ---- memory accesses: checked mode's checks, counting mode's counts -------------------------
    def memory_accesses(self, op: str, rest: str) -> list[tuple[str, str, int, int]]:
        """(pointer operand, size operand, alignment, flags) of each memory access of an instruction."""
        accesses: list[tuple[str, str, int, int]] = []
        if op == "load":
            parts = split_top(re.sub(r"^\s*(atomic\s+)?(volatile\s+)?", "", rest))
            accesses.append((parts[1], f"i64 {self.layout.size(parts[0])}", _align(parts), 0))
        elif op == "store":
            parts = split_top(re.sub(r"^\s*(atomic\s+)?(volatile\s+)?", "", rest))
            accesses.append((parts[1], f"i64 {self.layout.size(parts[0])}", _align(parts), ACCESS_WRITE))
        elif op == "atomicrmw":
            parts = split_top(rest)
            pointer = re.sub(r"^\s*(volatile\s+)?\w+\s+", "", parts[0])
            accesses.append((pointer, f"i64 {self.layout.size(parts[1])}", _align(parts), ACCESS_WRITE))
        elif op == "cmpxchg":
            parts = split_top(rest)
            pointer = re.sub(r"^\s*(weak\s+)?(volatile\s+)?", "", parts[0])
            accesses.append((pointer, f"i64 {self.layout.size(parts[1])}", _align(parts), ACCESS_WRITE))
        elif op == "call" and (mem := _MEM_INTRINSIC.search(rest)):
            args = split_top(mem.group("args"))
            length = args[2]
            accesses.append((args[0], length, _pointer_align(args[0]), ACCESS_WRITE))
            if mem.group("kind") != "memset":
                accesses.append((args[1], length, _pointer_align(args[1]), 0))
        return accesses

    def memory_check(self, p: re.Match, size_value: str, align: int, flags: int, indent: str) -> list[str]:
        """Checked mode's check of an access of `size_value` bytes through pointer `p` (a _POINTER match)."""
        if p.group("space") == _CONSTANT_SPACE:
            flags |= ACCESS_CONSTANT
        address = self.fresh("a")
        return [f"{indent}{address} = ptrtoint ptr addrspace({p.group('space')}) {p.group('value')} to i64",
                f"{indent}call void @mfemu_check_access(i64 {address}, i64 {size_value}, i64 {align}, "
                f"i32 {self.site_of(self.last_dbg)}, i32 {flags}){self.dbg()}"]

    def dbg(self) -> str:
        return f", !dbg {self.last_dbg}" if self.last_dbg else ""

    # ---- integer division -----------------------------------------------------------------------
    def division(self, m: re.Match, op: str) -> list[str] | None:
        rest = re.sub(r"^\s*(exact\s+)?", "", m.group("rest"))
        rest = _DBG.sub("", rest)
        size, _, type_end = self.layout.parse(rest)
        ty = rest[:type_end].strip()
        dividend, divisor = split_top(rest[type_end:])[:2]
        signed = op[0] == "s"
        if _safe_divisor(divisor, signed):
            return None
        vector = re.match(r"<(\d+) x (i\d+)>", ty)
        lanes, elem = (int(vector.group(1)), vector.group(2)) if vector else (1, ty)
        bits = int(elem[1:])
        cond_ty = f"<{lanes} x i1>" if vector else "i1"

        def const(value: int) -> str:
            return f"<{', '.join([f'{elem} {value}'] * lanes)}>" if vector else str(value)

        indent, result, dbg = m.group("indent"), m.group("result"), self.dbg()
        zero, bad = self.fresh("z"), self.fresh("bad")
        out = [f"{indent}{zero} = icmp eq {ty} {divisor}, {const(0)}"]
        overflow = None
        if signed:
            is_min, is_minus_one, overflow = self.fresh("min"), self.fresh("m1"), self.fresh("ovf")
            out += [f"{indent}{is_min} = icmp eq {ty} {dividend}, {const(-(1 << (bits - 1)))}",
                    f"{indent}{is_minus_one} = icmp eq {ty} {divisor}, {const(-1)}",
                    f"{indent}{overflow} = and {cond_ty} {is_min}, {is_minus_one}",
                    f"{indent}{bad} = or {cond_ty} {zero}, {overflow}"]
        else:
            bad = zero
        if self.checked:
            flags = [self.any_lane(zero, lanes, indent, out), self.any_lane(overflow, lanes, indent, out)
                     if overflow else "false"]
            out.append(f"{indent}call void @mfemu_check_division(i1 {flags[0]}, i1 {flags[1]}, "
                       f"i32 {self.site_of(self.last_dbg)}){dbg}")
        safe_divisor, quotient = self.fresh("d"), self.fresh("q")
        # A divisor of 1 where the division would trap: x / 1 and x % 1 are the wrapped results of
        # INT_MIN / -1 (INT_MIN and 0); division by zero is replaced below.
        out += [f"{indent}{safe_divisor} = select {cond_ty} {bad}, {ty} {const(1)}, {ty} {divisor}",
                f"{indent}{quotient} = {op} {ty} {dividend}, {safe_divisor}",
                f"{indent}{result} = select {cond_ty} {zero}, {ty} {const(-1) if op.endswith('div') else dividend}, "
                f"{ty} {quotient}"]
        return out

    def any_lane(self, flag: str, lanes: int, indent: str, out: list[str]) -> str:
        if lanes == 1:
            return flag
        bits, any_set = self.fresh("bits"), self.fresh("any")
        out += [f"{indent}{bits} = bitcast <{lanes} x i1> {flag} to i{lanes}",
                f"{indent}{any_set} = icmp ne i{lanes} {bits}, 0"]
        return any_set


def _align(parts: list[str]) -> int:
    for part in parts:
        m = re.match(r"align (\d+)$", part)
        if m:
            return int(m.group(1))
    return 1


def _pointer_align(arg: str) -> int:
    m = re.search(r"\balign (\d+)", arg)
    return int(m.group(1)) if m else 1


def _safe_divisor(divisor: str, signed: bool) -> bool:
    """Whether the divisor is a constant that can neither be 0 nor (for signed division) -1."""
    text = divisor.strip()
    m = re.fullmatch(r"splat \((i\d+) (-?\d+)\)", text)
    if m:
        values = [m.group(2)]
    elif text.startswith("<"):
        values = [v.split()[-1] for v in split_top(text[1:-1])]
    else:
        values = [text]
    if not all(re.fullmatch(r"-?\d+", v) for v in values):
        return False
    return all(int(v) != 0 and not (signed and int(v) == -1) for v in values)


def instrument(ir: str, checked: bool, main_file: str, shim_files: list[str], counting: bool = False) -> str:
    """`ir` with divisions made safe, loops not assumed to end, if `checked` every device/constant
    access checked and, if `counting`, every device/constant/threadgroup load, store and
    memcpy/memset counted (mfemu_count_access, shim/mfemu/counts.h; atomics are counted by the shim).

    `main_file` is the translation unit's path (sites in it are kernel lines); `shim_files` the
    shim headers, relative to the shim directory, in the order the runtime's reports number them.
    """
    rewriter = _Rewriter(ir, checked, main_file, shim_files, counting)
    out: list[str] = []
    in_function = False
    for line in ir.split("\n"):
        if line.startswith("define "):
            in_function, rewriter.last_dbg = True, ""
        elif line.startswith("}"):
            in_function = False
        elif line.startswith("attributes #"):
            line = re.sub(r"\bmustprogress ", "", line)
        elif '!"llvm.loop.mustprogress"' in line:  # an unknown loop property is ignored
            line = line.replace("llvm.loop.mustprogress", "mfemu.loop.may-run-forever")
        out.extend(rewriter.rewrite_line(line) if in_function and line.startswith(" ") else [line])
    return "\n".join(out)


def poll_loops(ir: str, checked: bool, main_file: str, shim_files: list[str]) -> str:
    """Optimised `ir` with a stop check before every branch back to an earlier block of its function
    (see the module's docstring); `checked` IR has line tables, so the check names its source line."""
    sites = _Sites.parse(ir, main_file, shim_files) if checked else _Sites({})
    out: list[str] = []
    body: list[str] | None = None  # the lines of the function being read
    polls = 0
    for line in ir.split("\n"):
        if line.startswith("define "):
            body = []
            out.append(line)
        elif line.startswith("}") and body is not None:
            polled, polls = _poll_function(body, sites, polls)
            out += polled + [line]
            body = None
        elif body is not None:
            body.append(line)
        else:
            out.append(line)
    if polls and not re.search(f"^{_STOP_FLAG} ", ir, re.M):
        out.append(f"{_STOP_FLAG} = external global i32, align 4")
    if polls and not re.search(f"^declare .*{_STOPPED}\\(", ir, re.M):
        out.append(f"declare void {_STOPPED}(i32) noreturn nounwind")
    return "\n".join(out)


def _poll_function(body: list[str], sites: _Sites, polls: int) -> tuple[list[str], int]:
    """A function's lines with a stop check before each terminator that branches back to its own or an
    earlier block, and the number of checks so far. The terminator moves to a new block, so phis that
    named its block as a predecessor are renamed to the new one."""
    out: list[str] = []
    seen: set[str] = set()  # labels of the blocks so far
    renamed: dict[str, str] = {}
    block = ""  # the entry block has no label, and no branch can go back to it
    for i, line in enumerate(body):
        if m := _BLOCK_LABEL.match(line):
            block = m.group("label")
            seen.add(block)
        m = _INSTRUCTION.match(line)
        if not (m and m.group("op") in _TERMINATORS and block):
            out.append(line)
            continue
        end = i if m.group("op") == "br" else next(j for j in range(i, len(body)) if body[j].strip().startswith("]"))
        if not any(target in seen for k in range(i, end + 1) for target in _TARGET.findall(body[k])):
            out.append(line)
            continue
        polls += 1
        dbg_match = _DBG.search(line)
        dbg = f", !dbg {dbg_match.group(1)}" if dbg_match else ""
        site = sites.lines.get(dbg_match.group(1), 0) if dbg_match else 0
        indent, latch = m.group("indent"), f"mfemu.latch{polls}"
        out += [f"{indent}%mfemu.stop{polls} = load volatile i32, ptr {_STOP_FLAG}, align 4",
                f"{indent}%mfemu.stopping{polls} = icmp ne i32 %mfemu.stop{polls}, 0",
                f"{indent}br i1 %mfemu.stopping{polls}, label %mfemu.stopped{polls}, label %{latch}{dbg}",
                f"mfemu.stopped{polls}:",
                f"{indent}call void {_STOPPED}(i32 {site}){dbg}",
                f"{indent}unreachable",
                f"{latch}:", line]
        renamed[block] = latch
    if renamed:
        predecessor = re.compile(r",\s*%(" + "|".join(map(re.escape, renamed)) + r")\s*\]")
        out = [predecessor.sub(lambda p: f", %{renamed[p.group(1)]} ]", line) if " = phi " in line else line
               for line in out]
    return out, polls
