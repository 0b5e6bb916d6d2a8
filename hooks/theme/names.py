"""mkdocs-material's names that more than one of our patches, style sheets or tests use: each is written here once.

Python reads them from here; a style sheet or a script cannot import, so
tests/build/test_theme_contract.py checks that a11y.js, layout.css and the
playground's table use these very strings, and hooks/theme/contract.py that
the installed mkdocs-material still holds them.
"""

from __future__ import annotations

SCRIPTS = "assets/javascripts"
"""The folder of mkdocs-material's scripts, in its theme and in the built site."""
BUNDLE = SCRIPTS + r"/bundle\.[0-9a-f]{8}\.min\.js"
"""mkdocs-material's script, as a regex of its path in the theme and in the built site (its name holds a hash)."""

SCROLLWRAP = "md-typeset__scrollwrap"
"""The class of the box mkdocs-material's script puts a table in: it scrolls sideways on a narrow screen."""
TABLE_PAD = "md-typeset__table"
"""The class of the box inside :data:`SCROLLWRAP`, which pads the table."""
WRAPPED_TABLES = "table:not([class])"
"""The tables mkdocs-material's script wraps: a table with a class (a code block's line numbers) is left alone."""
TABLE_BOX = f".{SCROLLWRAP}:not(.{TABLE_PAD} > *)"
"""A table's box: the outer of its two :data:`SCROLLWRAP` once the script has wrapped the table again inside the
wrapping the build gave it (hooks/theme/table_wraps.py); the inner one never scrolls."""
