"""ES modules to one classic script: what a page can load from disk (``file://``), where module scripts do not load.

The playground's modules (``docs/assets/javascripts/playground/``) are plain
ES modules, served and type-checked as written.  A browser refuses to load a
module script from a ``file://`` page, so the site ships them as one classic
script instead, made here at build time.  The bundler knows only the subset of
module syntax those files use, and refuses anything else with the file and
line, so a construct it cannot translate is never translated wrongly:

- ``import { a, b as c } from "./x.js";``, ``import * as x from "./x.js";``
  and ``import "./x.js";``, with relative paths only (no packages);
- ``export function|class|const|let|async function name``;
- ``export { a, b as c };``, ``export { a } from "./x.js";`` and
  ``export * from "./x.js";``.

Each module becomes a function that runs once, in dependency order, and
returns its exports; an import becomes a ``const`` taken from them (a
snapshot: a module must not reassign a binding it exports, which none does).
Import cycles are refused.  The output depends on the files' bytes alone, so
two builds give the same script.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

NAME = r"[A-Za-z_$][\w$]*"
SPEC = r'"(\.{1,2}/[^"]+\.js)"'
IMPORT_NAMED = re.compile(r"^import\s*\{([^}]*)\}\s*from\s*" + SPEC + r"\s*;?[ \t]*$", re.M)
IMPORT_ALL = re.compile(r"^import\s*\*\s*as\s+(" + NAME + r")\s+from\s*" + SPEC + r"\s*;?[ \t]*$", re.M)
IMPORT_BARE = re.compile(r"^import\s*" + SPEC + r"\s*;?[ \t]*$", re.M)
EXPORT_LIST = re.compile(r"^export\s*\{([^}]*)\}\s*(?:from\s*" + SPEC + r")?\s*;?[ \t]*$", re.M)
EXPORT_ALL = re.compile(r"^export\s*\*\s*from\s*" + SPEC + r"\s*;?[ \t]*$", re.M)
EXPORT_DECLARATION = re.compile(r"^export\s+((?:async\s+)?function\*?|class|const|let)\s+(" + NAME + r")", re.M)
LEFT_OVER = re.compile(r"^\s*(?:import|export)\b|\bimport\s*\(|\bimport\.meta\b", re.M)
COMMENT = re.compile(r"/\*.*?\*/|//[^\n]*", re.S)
"""A comment, roughly (the check for left-over module syntax skips JSDoc's ``import("./x.js").T`` types)."""


class BundleError(ValueError):
    """A module the bundler cannot translate; the message names the file and line."""


@dataclass
class Module:
    """One module, translated: its key (path from the bundle's root), body, dependencies and exports."""

    key: str
    body: str
    needs: list[str]
    exports: list[tuple[str, str]]
    """(exported name, expression in the module's scope)."""
    reexports_all: list[str]


def _names(listing: str, where: str) -> list[tuple[str, str]]:
    """``a, b as c`` as [("a", "a"), ("b", "c")]: (name there, name here)."""
    pairs = []
    for item in filter(None, (part.strip() for part in listing.split(","))):
        match = re.fullmatch(rf"({NAME})(?:\s+as\s+({NAME}))?", item)
        if not match:
            raise BundleError(f"{where}: cannot read the name list item {item!r}")
        pairs.append((match.group(1), match.group(2) or match.group(1)))
    return pairs


def _line(text: str, index: int) -> int:
    return text.count("\n", 0, index) + 1


def _resolve(key: str, spec: str) -> str:
    parts: list[str] = []
    for part in (PurePosixPath(key).parent / spec).parts:
        if part == "..":
            if not parts:
                raise BundleError(f"{key}: {spec!r} leads outside the bundle's root")
            parts.pop()
        elif part != ".":
            parts.append(part)
    return "/".join(parts)


def translate(key: str, text: str) -> Module:
    """Module ``key``'s source as a function body that returns its exports; ``BundleError`` if it cannot."""
    needs: list[str] = []
    exports: list[tuple[str, str]] = []
    reexports_all: list[str] = []

    def ref(spec: str) -> str:
        target = _resolve(key, spec)
        needs.append(target)
        return f"__modules[{json.dumps(target)}]"

    def named_import(match: re.Match[str]) -> str:
        where = f"{key}:{_line(text, match.start())}"
        names = _names(match.group(1), where)
        pairs = ", ".join(there if there == here else f"{there}: {here}" for there, here in names)
        return f"const {{ {pairs} }} = {ref(match.group(2))};"

    def export_list(match: re.Match[str]) -> str:
        where = f"{key}:{_line(text, match.start())}"
        source = ref(match.group(2)) if match.group(2) else None
        for here, exported in _names(match.group(1), where):
            exports.append((exported, f"{source}.{here}" if source else here))
        return ""

    def export_all(match: re.Match[str]) -> str:
        reexports_all.append(ref(match.group(1)))
        return ""

    def declaration(match: re.Match[str]) -> str:
        exports.append((match.group(2), match.group(2)))
        return f"{match.group(1)} {match.group(2)}"

    body = IMPORT_NAMED.sub(named_import, text)
    body = IMPORT_ALL.sub(lambda m: f"const {m.group(1)} = {ref(m.group(2))};", body)
    body = IMPORT_BARE.sub(lambda m: f"void {ref(m.group(1))};", body)
    body = EXPORT_ALL.sub(export_all, body)
    body = EXPORT_LIST.sub(export_list, body)
    body = EXPORT_DECLARATION.sub(declaration, body)
    code = COMMENT.sub(lambda m: re.sub(r"[^\n]", " ", m.group(0)), body)  # same lines, comments blanked
    left = LEFT_OVER.search(code)
    if left:
        raise BundleError(f"{key}:{_line(code, left.start())}: module syntax the bundler does not translate: "
                          f"{code[left.start():left.start() + 40].strip()!r}")
    return Module(key, body, needs, exports, reexports_all)


def _order(modules: dict[str, Module], entry: str) -> list[Module]:
    """Every module ``entry`` needs, each after what it needs; ``BundleError`` for a cycle."""
    done: list[Module] = []
    state: dict[str, str] = {}

    def visit(key: str, path: tuple[str, ...]) -> None:
        if state.get(key) == "done":
            return
        if state.get(key) == "open":
            raise BundleError(f"import cycle: {' -> '.join((*path, key))}")
        state[key] = "open"
        for need in modules[key].needs:
            if need not in modules:
                raise BundleError(f"{key} imports {need}, which is not there")
            visit(need, (*path, key))
        state[key] = "done"
        done.append(modules[key])

    visit(entry, ())
    return done


KEYWORDS_BEFORE_EXPRESSION = frozenset(
    "return typeof case do else in of new delete void throw instanceof yield await".split())
"""Words after which a ``/`` starts a regular expression, not a division."""


def _space_needed(before: str, after: str) -> bool:
    """Whether the blanks between ``before`` and ``after`` (single characters) must stay one space:
    between two word characters, between signs that would fuse (``a - -b``), after a number before a dot.
    """
    if not before or not after or after == "\n":
        return False
    word = re.compile(r"[\w$]")
    if word.match(before) and word.match(after):
        return True
    return (before in "+-/" and after in "+-/") or (before.isdigit() and after == ".")


def strip_comments(text: str) -> str:
    """``text`` without its comments, blank lines, indentation and needless blanks: the same program, smaller.

    A small scanner, not a parser: it steps over strings, template literals
    (with their ``${...}`` parts) and regular expression literals, so that
    a ``//`` or ``/*`` inside them stays.  A ``/`` is taken for a regular
    expression where a division could not stand: after an operator, an
    opening bracket, a comma, a keyword such as ``return``, or at the start.
    Line breaks are kept (automatic semicolon insertion sees the same lines).
    """
    out: list[str] = []
    i, n = 0, len(text)
    braces: list[int] = []  # for each open ${ of a template: the depth of { inside it
    last = ""  # the last significant character or word written
    while i < n:
        c = text[i]
        if c == "/" and text.startswith("//", i):
            i = text.find("\n", i)
            i = n if i < 0 else i
            continue
        if c == "/" and text.startswith("/*", i):
            end = text.find("*/", i + 2)
            if end < 0:
                raise BundleError("an unclosed comment")
            out.append("\n" * text.count("\n", i, end) or " ")
            i = end + 2
            continue
        if c in "'\"" or (c == "`") or (c == "}" and braces and braces[-1] == 0):
            if c == "}":
                braces.pop()
                quote = "`"
            else:
                quote = c
            j = i + 1
            while j < n and text[j] != quote:
                if text[j] == "\\":
                    j += 2
                    continue
                if quote == "`" and text.startswith("${", j):
                    braces.append(0)
                    j += 2
                    break
                if quote != "`" and text[j] == "\n":
                    raise BundleError("a line break in a string")
                j += 1
            else:
                j += 1
            out.append(text[i:j])
            i = j
            last = "x"
            continue
        if c == "/":
            word = last if last.isidentifier() else ""
            if (not last) or (not word and last in "(,=:[!&|?{};+-*%<>~^") or word in KEYWORDS_BEFORE_EXPRESSION:
                j, in_class = i + 1, False
                while j < n and (text[j] != "/" or in_class):
                    if text[j] == "\\":
                        j += 1
                    elif text[j] == "[":
                        in_class = True
                    elif text[j] == "]":
                        in_class = False
                    elif text[j] == "\n":
                        raise BundleError("a line break in a regular expression")
                    j += 1
                j += 1
                while j < n and (text[j].isalnum()):
                    j += 1
                out.append(text[i:j])
                i = j
                last = "x"
                continue
        if c == "{" and braces:
            braces[-1] += 1
        elif c == "}" and braces:
            braces[-1] -= 1
        match = re.match(r"[A-Za-z_$][\w$]*|\d[\w.]*", text[i:i + 200])
        if match:
            out.append(match.group(0))
            last = match.group(0)
            i += len(match.group(0))
            continue
        if c in " \t":
            j = i
            while j < n and text[j] in " \t":
                j += 1
            before = out[-1][-1:] if out else ""
            after = text[j:j + 1]
            if _space_needed(before, after):
                out.append(" ")
            i = j
            continue
        out.append(c)
        if not c.isspace():
            last = c
        i += 1
    lines = (line.strip() for line in "".join(out).split("\n"))
    return "\n".join(line for line in lines if line) + "\n"


def build_value(name: str) -> str:
    """The placeholder a module writes where the build puts the value ``name``: ``/* build: name */ ({})``.

    As written, the module sees an empty object (served as a module, or type-checked); in the bundle,
    the build's value.
    """
    return f"/* build: {name} */ ({{}})"


def bundle(root: Path, entry: str, values: dict[str, object] | None = None) -> bytes:
    """The classic script of module ``entry`` (a path under ``root``) and every module it imports.

    ``values`` maps a name to what the build hands the modules (JSON-able):
    each stands in for its placeholder (:func:`build_value`), which must
    appear in one of the modules bundled (``BundleError`` otherwise).
    """
    modules = {path.relative_to(root).as_posix(): path for path in sorted(root.rglob("*.js"))}
    if entry not in modules:
        raise BundleError(f"no module {entry} under {root}")
    translated = {key: translate(key, path.read_text(encoding="utf-8")) for key, path in modules.items()}
    ordered = _order(translated, entry)
    for name, value in sorted((values or {}).items()):
        holder = build_value(name)
        users = [m for m in ordered if holder in m.body]
        if not users:
            raise BundleError(f"no module bundled holds the placeholder {holder}")
        for module in users:
            module.body = module.body.replace(holder, f"({json.dumps(value, sort_keys=True)})")
    for module in ordered:
        module.body = strip_comments(module.body)
    parts = ["(function () {", '"use strict";', "const __modules = {};"]
    for module in ordered:
        own = ", ".join(f"{json.dumps(name)}: {expr}" for name, expr in module.exports)
        result = f"Object.freeze(Object.assign({{}}, {', '.join([*module.reexports_all, f'{{ {own} }}'])}))"
        parts.append(f"__modules[{json.dumps(module.key)}] = (function () {{\n"
                     f"{module.body.strip()}\nreturn {result};\n}})();")
    parts.append("})();\n")
    return "\n".join(part for part in parts if part).encode()
