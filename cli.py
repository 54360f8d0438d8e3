"""The `metalforge` command line."""
from __future__ import annotations

import argparse
import sys


def _selftest(args: argparse.Namespace) -> int:
    from .runtime.selftest import selftest

    return 0 if selftest(args.backend or None, seed=args.seed) else 1


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="metalforge", description=__doc__)
    sub = parser.add_subparsers(dest="command", required=True)
    p = sub.add_parser("selftest", help="run reference Metal kernels on every available back end and compare")
    p.add_argument("--backend", action="append", choices=["metal", "emulator"],
                   help="back end to check (repeatable; default: all available)")
    p.add_argument("--seed", type=int, default=None, help="random seed for the inputs")
    p.set_defaults(run=_selftest)
    return parser


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    return args.run(args)


if __name__ == "__main__":
    sys.exit(main())
