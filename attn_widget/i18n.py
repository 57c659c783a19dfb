"""The words Python shows itself (the ``CorpusWidget``, built from ipywidgets) in the language of a ``lang``
option, from the front end's own tables: js/src/locale/*.json, which js/build.mjs copies to static/locale/.
As in js/src/i18n.js, English text is the key and a phrase missing from a table shows in English;
tests/test_locale.py keeps the tables complete for both."""

from __future__ import annotations

import functools
import json
import pathlib
import re

_LOCALE = pathlib.Path(__file__).parent / "static" / "locale"


@functools.cache
def _table(lang: str) -> dict[str, str]:
    path = _LOCALE / f"{lang}.json"
    return json.loads(path.read_text(encoding="utf-8")) if path.exists() else {}


def tr(lang: str, text: str, **params: object) -> str:
    """``text`` in ``lang``, with ``{name}`` placeholders filled from ``params`` after translation (so a
    translation may move them); the same rule as ``tr`` in js/src/i18n.js."""
    translated = _table(lang).get(text, text)
    return re.sub(r"\{(\w+)\}", lambda m: str(params[m[1]]) if m[1] in params else m[0], translated)
