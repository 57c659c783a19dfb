"""Token text that is safe to show and to serialise (mirrored by ``displayToken`` in js/src/text.js).

Tokenizers decode single tokens to any string at all: control characters, a lone half of a
surrogate pair, invisible bidirectional overrides. Shown as they are, they break a label's line,
reorder the text around them or vanish; serialised, they make an SVG file invalid XML (C0
controls, U+FFFE, U+FFFF) or stop Jupyter's message packer (lone surrogates). ``display_token``
makes each of them visible instead.
"""

from __future__ import annotations

import re

# Characters that are invisible, break lines, reorder text or are not allowed in XML 1.0:
# C0 controls, DEL and C1 controls; the soft hyphen, Arabic letter mark, zero-width and
# directional marks, line and paragraph separators, bidi embeddings, overrides and isolates,
# invisible operators, the byte-order mark; the noncharacters U+FFFE and U+FFFF; lone surrogates.
_UNSAFE = re.compile(
    "[\x00-\x1f\x7f-\x9f\xad\u061c\u200b-\u200f\u2028-\u202e\u2060-\u206f\ufeff\ufffe\uffff\ud800-\udfff]"
)
EMPTY = "\u2205"  # ∅: a token whose text is empty
# Newline and tab as editors show them. (Unicode's Control Pictures, ␊ and ␉, are missing from
# common fonts such as DejaVu: browsers drew them as empty boxes.)
_WHITESPACE = {"\n": "\u21b5", "\t": "\u21e5"}  # ↵ ⇥


def _visible(match: re.Match) -> str:
    char = match.group()
    if char in _WHITESPACE:
        return _WHITESPACE[char]
    code = ord(char)
    if 0xD800 <= code <= 0xDFFF or code >= 0xFFFE:
        return "\ufffd"  # �: not a character
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"  # "\x00", "\u202e": an escape, as Python writes it


def display_token(text: str) -> str:
    """``text`` with every unsafe character made visible; the empty string as ∅.

    * a newline becomes ↵ and a tab ⇥;
    * every other control character (C0 U+0000-U+001F, DEL, C1 U+0080-U+009F) and the invisible
      formatting characters (soft hyphen, zero-width and direction marks, zero-width joiners,
      line and paragraph separators, bidi embeddings, overrides and isolates, U+2060-U+206F,
      the byte-order mark) become escapes as Python writes them: ``\\x00``, ``\\x0d``,
      ``\\x85``, ``\\u202e``;
    * a surrogate pair becomes its character, a lone surrogate, U+FFFE and U+FFFF become U+FFFD.

    Everything else (letters of any script, emoji, combining marks, spaces) is kept. The result
    is valid UTF-8 and XML 1.0 text, and applying the function again changes nothing.
    """
    if not isinstance(text, str):
        raise TypeError(f"a token's text must be a string; got {type(text).__name__}.")
    if text == "":
        return EMPTY
    # Pairs of surrogates become the character they encode; lone ones, U+FFFD.
    text = text.encode("utf-16-le", "surrogatepass").decode("utf-16-le", "replace")
    return _UNSAFE.sub(_visible, text)
