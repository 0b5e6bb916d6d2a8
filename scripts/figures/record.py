"""A record: one thing the build makes (a figure, a table or a set of numbers), named by its id.

Every builder module declares its records with literal ids in a
``records()`` function, so a plain text search for an id seen on a page
(``{{ figure race-fp16-uniform }}``, ``{{ bounds.fp16.kahan }}``) lands on
the line that makes it.  What a record's id names is set out in
:mod:`figures.contract`.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .contract import NestedNumbers, check_id


@dataclass(frozen=True)
class Built:
    """What a builder makes: files for the site, and numbers for the pages.

    ``files`` maps a site path (``figures/x.svg``) to bytes; ``numbers`` maps
    literal keys to text, nested as the builder likes (``{"fp16": {"naive": "2,048"}}``).
    """

    files: dict[str, bytes]
    numbers: NestedNumbers = field(default_factory=dict)


@dataclass(frozen=True)
class Record:
    """One thing to build: its id, its parameters (a frozen dataclass) and its builder.

    ``build(id, params)`` returns the record's files and numbers.  ``inputs``
    lists the files the builder reads other than by importing them
    (snippets, CITATION.cff, a module read as text): their bytes go into the
    cache key too.  The modules it imports, and the non-Python files of the
    model and builder packages, are in the key already (:mod:`figures.cache`).
    ``ValueError`` for an id that is not lower-case letters, digits and hyphens.
    """

    id: str
    params: Any
    build: Callable[[str, Any], Built]
    inputs: tuple[Path, ...] = ()

    def __post_init__(self) -> None:
        check_id(self.id)
