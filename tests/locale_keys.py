"""The English phrases the widget translates (js/src/i18n.js): every string literal passed to
``tr(lang, ...)`` or a module's ``say(...)`` in js/src, the menu texts and control words of js/src/options.js, and
the words Python sends (method and token-score menus, layer and column names), and the words Python
shows itself (``tr(lang, ...)`` and ``say(...)`` in attn_widget: the CorpusWidget, attn_widget/i18n.py).
tests/test_locale.py checks each language table against them."""

from __future__ import annotations

import ast
import pathlib
import re

from front_end_options import front_end_options

ROOT = pathlib.Path(__file__).resolve().parent.parent
SRC = ROOT / "js" / "src"
_CALL = re.compile(r"\b(?:tr|say)\(")


def _literals_of_call(text: str, start: int) -> list[str]:
    """String literals at the top level of the call whose "(" is at ``start - 1``: the phrase, both
    phrases of a ternary; not those inside nested calls, objects or arrays. Double-quoted, or single-quoted
    where the phrase holds a double quote (Biome's format)."""
    depth, i, found = 0, start, []
    while i < len(text):
        c = text[i]
        if c in "\"'":
            end = i + 1
            while text[end] != c:
                end += 2 if text[end] == "\\" else 1
            # A comparison's operand (`x === "in"`) is no phrase.
            if depth == 0 and not re.search(r"[=!]==\s*$", text[max(0, i - 8) : i]):
                found.append(text[i + 1 : end].replace("\\" + c, c))
            i = end + 1
            continue
        if c == "`":  # a template literal: skip (phrases are plain literals)
            i = text.index(c, i + 1) + 1
            continue
        if c in "([{":
            depth += 1
        elif c in ")]}":
            if depth == 0:
                return found
            depth -= 1
        i += 1
    return found


def js_phrases() -> set[str]:
    phrases: set[str] = set()
    for path in SRC.glob("*.js"):
        text = path.read_text(encoding="utf-8")
        for match in _CALL.finditer(text):
            phrases.update(_literals_of_call(text, match.end()))
    for option in front_end_options()["options"]:
        if option["trait"] == "lang":  # each language is named in its own words
            continue
        phrases.update(text for _value, text in option["choices"] or ())
        control = option["control"] if isinstance(option["control"], dict) else {}
        phrases.update(control[key] for key in ("label", "name", "title") if key in control)
    return phrases


def widget_phrases(widget) -> set[str]:
    """The words a widget sends that the front end translates (state.js: translatedMethod, layerName,
    trName), layer and column names as their "{n}" patterns."""
    phrases = {segment["label"] for segment in widget.segments}
    for method in [*widget.methods, *widget.graphs]:
        phrases.update(
            method.get(key) for key in ("label", "group", "description", "explain", "hint", "trust") if method.get(key)
        )
    for entry in widget.attributions:
        phrases.update(entry[key] for key in ("label", "description", "hint", "trust") if entry.get(key))
    for name in [*widget.layer_names, *(name for names in widget.column_names for name in names)]:
        numbered = re.fullmatch(r"(.*\S) (\d+)", name)
        phrases.add(f"{numbered[1]} {{n}}" if numbered else name)
    return phrases


def python_phrases() -> set[str]:
    """String literals passed to ``tr(lang, ...)`` or a ``say(...)`` method in attn_widget's Python, both
    branches of a conditional phrase included; phrases passed as variables are the caller's to add."""
    phrases: set[str] = set()
    for path in (ROOT / "attn_widget").rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if not isinstance(node, ast.Call):
                continue
            name = node.func.id if isinstance(node.func, ast.Name) else getattr(node.func, "attr", "")
            if name in ("tr", "say"):
                for argument in node.args:
                    branches = [argument.body, argument.orelse] if isinstance(argument, ast.IfExp) else [argument]
                    phrases.update(b.value for b in branches if isinstance(getattr(b, "value", None), str))
    return phrases
