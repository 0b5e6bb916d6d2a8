"""Where an error happened, in one short phrase for a build message (no traceback)."""

from __future__ import annotations

import traceback
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]


def located(error: BaseException) -> str:
    """``path:line`` of a syntax error, or of the deepest frame inside the repository ("?" if none)."""
    if isinstance(error, SyntaxError) and error.filename:
        return f"{Path(error.filename).resolve().relative_to(REPO)}:{error.lineno}"
    frames = [f for f in traceback.extract_tb(error.__traceback__) if f.filename.startswith(str(REPO))]
    return f"{Path(frames[-1].filename).relative_to(REPO)}:{frames[-1].lineno}" if frames else "?"
