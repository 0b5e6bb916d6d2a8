r"""Which glyphs of MathJax's SVG font a page's formulas will draw, guessed from their TeX.

``hooks/serve_mathjax.py`` publishes, for each page with formulas, one file
with the outlines of the glyphs this module guesses, which MathJax's worker
loads before it typesets the page.  The guess reads the TeX, never runs
MathJax: the characters it names (through MathJax's own TeX tables, read out
of ``input/tex.js``, so ``\\le`` is U+2264), letters in the style they are set
in (italic by default, upright inside ``\\text`` and the like, bold, blackboard
or sans-serif under ``\\mathbf``, ``\\mathbb``, ``\\mathsf``), and, where a
formula stretches or enlarges a delimiter, a radical or a big operator, that
character in every size and the pieces its stretched form is built from.
It guesses more than is drawn (a letter in both its upright and its italic
form, a delimiter in every size): a page's file is a few times the outlines
it needs, tens of KB rather than the font's 1 MB.  A glyph it misses is
loaded by the worker when MathJax draws it (the block file that holds it):
a miss costs a request, never a wrong formula.
"""

from __future__ import annotations

import re
import unicodedata
from collections import defaultdict
from collections.abc import Iterable

TABLE_MAP = re.compile(r'new \w+\.(CharacterMap|DelimiterMap|CommandMap)\("[\w-]+",')
JS_STRING = re.compile(r'"((?:[^"\\]|\\.)*)"')
JS_ESCAPE = re.compile(r"\\(x[0-9a-fA-F]{2}|u\{[0-9a-fA-F]+\}|u[0-9a-fA-F]{4}|.)")
ENTRY = re.compile(r'(?:^|[{,])\s*(?:"((?:[^"\\]|\\.)*)"|([A-Za-z]\w*))\s*:\s*(\[[^\]]*\]|"(?:[^"\\]|\\.)*")')
HEX_CODE = re.compile(r"[0-9A-F]{4,5}")
TOKEN = re.compile(r"\\([A-Za-z]+|.)|(.)", re.S)

REMAPS = {"-": 0x2212, "*": 0x2217, "'": 0x2032, "`": 0x2018, "|": 0x2223}
"""Characters TeX input turns into others (a hyphen into a minus sign, ...)."""
SYNTAX = set("{}_^&#%~$\\")
"""Characters of TeX's syntax: they draw nothing themselves."""
ALWAYS = (0x20, 0xA0, 0x2061, 0x2062, 0x2063, 0x2064)
"""Spaces and invisible operators MathJax places between things."""
METHODS = {"sqrt": (0x221A,), "dots": (0x2026, 0x22EF), "ldots": (0x2026,), "cdots": (0x22EF,),
           "vdots": (0x22EE,), "ddots": (0x22F1,), "not": (0x338, 0x29F8)}
"""Commands whose character is in the code that parses them, not in a table."""
UPRIGHT = {"text", "textrm", "mbox", "mathrm", "mathup", "rm", "operatorname", "textup", "hbox"}
STYLES = {
    "mathbf": ("BOLD",), "bf": ("BOLD",), "textbf": ("BOLD",), "mathbfup": ("BOLD",),
    "boldsymbol": ("BOLD ITALIC", "BOLD"), "bm": ("BOLD ITALIC", "BOLD"), "mathbfit": ("BOLD ITALIC",),
    "mathbb": ("DOUBLE-STRUCK",), "Bbb": ("DOUBLE-STRUCK",), "mathfrak": ("FRAKTUR",), "mathscr": ("SCRIPT",),
    "mathsf": ("SANS-SERIF",), "sf": ("SANS-SERIF",), "textsf": ("SANS-SERIF",), "mathtt": ("MONOSPACE",),
    "tt": ("MONOSPACE",), "texttt": ("MONOSPACE",),
}
"""Math alphabets, by the words Unicode names their letters with (MATHEMATICAL BOLD SMALL A, ...)."""
STRETCH = re.compile(r"\\(left|right|middle|[bB]igg?[lrm]?|sqrt|over|under|wide|x[a-z]*arrow|begin)"
                     r"(?![a-z])")
"""A formula with one of these has delimiters, radicals or accents drawn larger than their text size."""
ENVIRONMENT_DELIMITERS = {"cases": "{", "pmatrix": "()", "bmatrix": "[]", "Bmatrix": "{}", "vmatrix": "|",
                          "Vmatrix": "\u2016"}
SIZES = ("smallop", "largeop", "texSize3", "texSize4")
"""The font's tables of enlarged characters (the names its code gives them)."""
PLAIN = ("normal",)
BOLD = ("bold",)


def js_string(text: str) -> str:
    """The value of a JavaScript string literal's body (escapes decoded)."""

    def unescape(match: re.Match[str]) -> str:
        escape = match.group(1)
        if escape[0] in "xu" and len(escape) > 1:
            return chr(int(escape[1:].strip("{}"), 16))
        return {"n": "\n", "t": "\t", "r": "\r"}.get(escape, escape)

    return JS_ESCAPE.sub(unescape, text)


def object_literal(source: str, start: int) -> str:
    """The JavaScript object or array literal that opens at ``source[start]`` (strings skipped)."""
    depth, i = 0, start
    while True:
        char = source[i]
        if char == '"':
            i += 1
            while source[i] != '"':
                i += 2 if source[i] == "\\" else 1
        elif char in "{[":
            depth += 1
        elif char in "}]":
            depth -= 1
            if depth == 0:
                return source[start:i + 1]
        i += 1


NAMED = ("NamedFn", "NamedOp")
"""How MathJax's tables mark \\log, \\max and the like: their name is set upright, as text."""


def tex_tables(tex_js: str) -> tuple[dict[str, set[int]], dict[str, list[str]], dict[str, str]]:
    """From MathJax's ``input/tex.js``: each command's characters, the TeX macros expand to, named functions' text."""
    codes: dict[str, set[int]] = defaultdict(set)
    expansions: dict[str, list[str]] = defaultdict(list)
    named: dict[str, str] = {}
    for table in TABLE_MAP.finditer(tex_js):
        body = object_literal(tex_js, tex_js.index("{", table.end()))
        for entry in ENTRY.finditer(body):
            name = js_string(entry.group(1)) if entry.group(1) is not None else entry.group(2)
            name = name[1:] if name.startswith("\\") and len(name) > 1 else name
            strings = [js_string(s) for s in JS_STRING.findall(entry.group(3))]
            if not strings:
                continue
            if table.group(1) != "CommandMap":
                codes[name].update(ord(char) for char in strings[0])
            elif strings[0] == "Macro" and len(strings) > 1:
                expansions[name].append(strings[1])
            elif strings[0] in NAMED:
                named[name] = strings[1] if len(strings) > 1 else name
            else:
                codes[name].update(int(s, 16) for s in strings[1:] if HEX_CODE.fullmatch(s))
    return codes, expansions, named


def styled(char: str, style: str) -> int | None:
    """The character of a math alphabet (``styled("x", "ITALIC")`` is U+1D465), or None if Unicode has none."""
    try:
        name = unicodedata.name(char)
    except ValueError:
        return None
    for prefix, kept in (("LATIN CAPITAL LETTER ", "CAPITAL "), ("LATIN SMALL LETTER ", "SMALL "),
                         ("GREEK CAPITAL LETTER ", "CAPITAL "), ("GREEK SMALL LETTER ", "SMALL "),
                         ("DIGIT ", "DIGIT "), ("GREEK ", "")):
        if name.startswith(prefix):
            try:
                return ord(unicodedata.lookup(f"MATHEMATICAL {style} {kept}{name[len(prefix):]}"))
            except KeyError:
                return None
    return None


def braced(tex: str, at: int) -> tuple[str, int]:
    """The brace group that starts at ``tex[at]`` (after spaces), and where it ends; ``("", at)`` if none."""
    i = at
    while i < len(tex) and tex[i] == " ":
        i += 1
    if i >= len(tex) or tex[i] != "{":
        return "", at
    depth, j = 0, i
    while j < len(tex):
        if tex[j] == "\\":
            j += 2
            continue
        depth += {"{": 1, "}": -1}.get(tex[j], 0)
        if depth == 0:
            return tex[i + 1:j], j + 1
        j += 1
    return tex[i + 1:], len(tex)


class GlyphGuess:
    """Guesses the glyphs formulas draw, from MathJax's TeX tables and the SVG font's tables."""

    def __init__(self, tex_js: str, tables: dict[str, set[int]], stretch: dict[int, set[int]]) -> None:
        """``tables``: the font's glyphs, by table (normal, bold, texSize4, ...); ``stretch``: a delimiter's pieces."""
        self.codes, self.expansions, self.named = tex_tables(tex_js)
        self.tables = tables
        self.stretch = stretch

    def characters(self, tex: str, seen: set[str]) -> tuple[set[int], set[str], set[str]]:
        """One formula's characters, the letters set upright, and the math alphabets it uses."""
        chars: set[int] = set(ALWAYS)
        upright: set[str] = set()
        styles = {"ITALIC"}
        for token in TOKEN.finditer(tex):
            command, char = token.group(1), token.group(2)
            if char is not None:
                if char not in SYNTAX:
                    chars.add(ord(char))
                if char in REMAPS:
                    chars.add(REMAPS[char])
                continue
            chars.update(self.codes.get(command, ()))
            chars.update(METHODS.get(command, ()))
            styles.update(STYLES.get(command, ()))
            if command in UPRIGHT:
                upright.update(braced(tex, token.end())[0])
            if command in ("begin", "end"):
                name, _ = braced(tex, token.end())
                chars.update(ord(c) for c in ENVIRONMENT_DELIMITERS.get(name, ""))
            upright.update(self.named.get(command, ""))
            for expansion in self.expansions.get(command, ()):
                if expansion not in seen:
                    seen.add(expansion)
                    more, more_upright, more_styles = self.characters(expansion, seen)
                    chars |= more
                    upright |= more_upright
                    styles |= more_styles
        return chars, upright, styles

    def glyphs(self, formulas: Iterable[str]) -> set[tuple[str, int]]:
        """The (table, code point) pairs the formulas are guessed to draw."""
        plain: set[int] = set()
        bold: set[int] = set()
        sized: set[int] = set()
        for tex in formulas:
            chars, upright, styles = self.characters(tex, set())
            letters = {chr(c) for c in chars if chr(c).isalpha() and c < 0x400}
            typed = {c for c in TOKEN.sub(lambda t: t.group(2) or " ", tex) if c.isalpha()}  # not named by a command
            plain |= {c for c in chars if chr(c) not in typed} | {ord(c) for c in upright}
            for style in styles:
                plain |= {code for code in (styled(c, style) for c in letters | set("0123456789")) if code}
            if styles & {"BOLD", "BOLD ITALIC"}:
                bold |= chars | {ord(c) for c in letters}
            big = {c for c in chars if c in self.tables.get("largeop", ()) and c not in self.stretch and c > 0x7F}
            if STRETCH.search(tex):
                big |= {c for c in chars if c in self.stretch or any(c in self.tables.get(t, ()) for t in SIZES)}
            for code in big:
                sized |= {code} | self.stretch.get(code, set())
        found = {(table, code) for table in PLAIN for code in plain | sized if code in self.tables.get(table, ())}
        found |= {(table, code) for table in BOLD for code in bold if code in self.tables.get(table, ())}
        found |= {(table, code) for table in SIZES for code in sized if code in self.tables.get(table, ())}
        return found
