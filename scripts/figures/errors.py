"""Where an error happened, in one short phrase for a build message (no traceback)."""

from __future__ import annotations

import traceback
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]


def located(error: BaseException, within: str | None = None) -> str:
    """``path:line`` of a syntax error, or of the deepest frame inside the repository ("?" if none).

    With ``within`` (a path relative to the repository), the deepest frame in
    that file comes first, then where the error was raised, if elsewhere.
    """
    if isinstance(error, SyntaxError) and error.filename:
        return f"{Path(error.filename).resolve().relative_to(REPO)}:{error.lineno}"
    frames = [f for f in traceback.extract_tb(error.__traceback__) if f.filename.startswith(str(REPO))]
    if not frames:
        return "?"
    raised = f"{Path(frames[-1].filename).relative_to(REPO)}:{frames[-1].lineno}"
    mine = [f for f in frames if f.filename == str(REPO / within)] if within else []
    if mine and mine[-1] is not frames[-1]:
        return f"{within}:{mine[-1].lineno}, raised at {raised}"
    return raised
