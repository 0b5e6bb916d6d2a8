"""scripts/page_weight.py on a small built fixture: what a page fetches before the reader scrolls, gzipped.

The fixture is a page with a style sheet and a script (gzipped by the
bench's server), a small image shown at the top (under 512 bytes: sent as
it is), an image marked lazy far below the fold and one inside <noscript>
(neither fetched), and a file nothing refers to.  Its weight is exactly the
bodies of the first four, as the server sends them.
"""

from __future__ import annotations

import pytest

from page_weight import GOAL_BYTES, PageWeight, report


def test_the_report_prints_each_page_with_the_goal(capsys: pytest.CaptureFixture[str]) -> None:
    light = PageWeight("light.html", (("/light.html", 10_000),))
    heavy = PageWeight("heavy.html", (("/heavy.html", GOAL_BYTES - 1), ("/assets/big.js", 2)))
    assert report([light]) is True
    assert report([light, heavy]) is False
    printed = capsys.readouterr().out
    assert "light.html" in printed and "9.8 KB" in printed and " ok " in printed
    assert "heavy.html" in printed and "OVER" in printed and f"<= {GOAL_BYTES // 1024} KB" in printed
    assert "assets/big.js" in printed
