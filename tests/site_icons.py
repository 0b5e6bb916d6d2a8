"""The icons of mkdocs-material's main sheet as the built site publishes it (``hooks/theme/icon_sprite.py``)."""

from __future__ import annotations

import sys
from pathlib import Path

from browsing import REPO, linked_sheets

sys.path.insert(0, str(REPO))
from hooks.theme.icon_sprite import Icon, theme_icons  # noqa: E402


def site_icons(site_dir: Path) -> list[Icon]:
    """The icons of the theme's main sheet as the site publishes it."""
    main = linked_sheets(site_dir, "index.html")[0]
    return theme_icons((site_dir / main).read_text(encoding="utf-8"))
