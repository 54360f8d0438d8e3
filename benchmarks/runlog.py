"""A benchmark script's log: each line printed and appended to a file in the run's folder, flushed as
it comes, so a run cut short (a device call's time limit) keeps what it did."""
from __future__ import annotations

import sys
import time
from pathlib import Path
from typing import TextIO


class Log:
    def __init__(self, path: Path, mode: str = "a", stamp: bool = True, stream: TextIO = sys.stderr) -> None:
        """`stamp`: prefix each line with the time of day; `stream`: where lines are printed too."""
        self.file = open(path, mode)
        self.stamp, self.stream = stamp, stream

    def __call__(self, message: str) -> None:
        line = f"{time.strftime('%H:%M:%S')} {message}" if self.stamp else message
        print(line, file=self.stream, flush=True)
        self.write(line + "\n")

    def write(self, text: str) -> None:
        """Text for the file only (a traceback behind a printed FAILED line)."""
        self.file.write(text)
        self.file.flush()
