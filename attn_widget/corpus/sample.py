"""An offline corpus for examples and benchmarks: sentences of the Python documentation that ships
with the standard library: ``pydoc_data.topics`` (the text behind ``help("if")``), then the
docstrings of some standard modules. The sentences depend on the Python version, not on a network."""

from __future__ import annotations

import importlib
import inspect
import re

_SENTENCE_END = re.compile(r"(?<=[.!?])\s+(?=[A-Z])")
_MODULES = (
    "argparse collections datetime decimal email.message fractions functools http.client inspect itertools json "
    "logging os pathlib pickle random re shutil socket statistics string subprocess tarfile textwrap threading "
    "typing unittest urllib.parse zipfile"
).split()


def _documents():
    from pydoc_data.topics import topics

    for name in sorted(topics):
        yield topics[name]
    for module_name in _MODULES:
        module = importlib.import_module(module_name)
        yield module.__doc__ or ""
        for _, member in sorted(vars(module).items()):
            if (inspect.isfunction(member) or inspect.isclass(member)) and member.__module__ == module_name:
                yield inspect.getdoc(member) or ""


def python_doc_sentences(limit: int | None = 2000, min_chars: int = 20, max_chars: int = 300) -> list[str]:
    """Up to ``limit`` distinct prose sentences (code blocks, tables and lists left out), in document order."""
    found: dict[str, None] = {}
    for document in _documents():
        for paragraph in re.split(r"\n\s*\n", document):
            if paragraph.startswith((" ", "\t")) or paragraph.lstrip().startswith((">>>", "+", "|", "*", "-", ":")):
                continue
            prose = " ".join(paragraph.split())
            for sentence in _SENTENCE_END.split(prose):
                if min_chars <= len(sentence) <= max_chars and sentence[-1] in ".!?" and sentence[0].isupper():
                    found.setdefault(sentence, None)
                    if limit is not None and len(found) >= limit:
                        return list(found)
    return list(found)
