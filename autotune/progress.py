"""A progress bar for tuning: tqdm when it is installed, else one plain line per trial on stderr."""
from __future__ import annotations

import sys
from typing import Optional


class Progress:
    def __init__(self, total: int, label: str, enabled: bool = True) -> None:
        self.total, self.label, self.enabled, self.done = total, label, enabled, 0
        self._bar = None
        if enabled:
            try:
                from tqdm import tqdm
            except ImportError:
                return
            self._bar = tqdm(total=total, desc=label, unit="trial", file=sys.stderr, leave=True)

    def update(self, status: str, best_ms: Optional[float]) -> None:
        self.done += 1
        if not self.enabled:
            return
        best = f"{best_ms:.4g} ms" if best_ms is not None else "-"
        if self._bar is not None:
            self._bar.set_postfix_str(f"last={status} best={best}", refresh=False)
            self._bar.update(1)
        else:
            print(f"{self.label}: trial {self.done}/{self.total} {status}, best {best}", file=sys.stderr, flush=True)

    def close(self) -> None:
        if self._bar is not None:
            self._bar.close()
