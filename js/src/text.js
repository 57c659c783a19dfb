// Untrusted text made safe to show and to save. displayToken mirrors display_token in
// attn_widget/text.py (js/test/text.test.js holds it to the pairs Python writes): the kernel
// already sends display strings, and this copes with any that reach the page otherwise.

/**
 * Invisible, line-breaking, reordering or non-XML characters: C0 controls, DEL, C1 controls, the
 * soft hyphen, the Arabic letter mark, zero-width and direction marks, line and paragraph
 * separators, bidi embeddings, overrides and isolates, U+2060-U+206F, the byte-order mark,
 * U+FFFE, U+FFFF and lone surrogates (with the u flag, a surrogate pair is one character).
 */
const UNSAFE =
  // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what this must find, to show them as escapes
  /[\u0000-\u001f\u007f-\u009f\u00ad\u061c\u200b-\u200f\u2028-\u202e\u2060-\u206f\ufeff\ufffe\uffff\ud800-\udfff]/gu;

/** Newline and tab as editors show them (Control Pictures such as ␊ are missing from common fonts). */
const WHITESPACE = new Map([
  ["\n", "\u21b5"],
  ["\t", "\u21e5"],
]); // ↵ ⇥

/** @param {string} char @returns {string} */
function visible(char) {
  const code = /** @type {number} */ (char.codePointAt(0));
  const shown = WHITESPACE.get(char);
  if (shown) return shown;
  if ((code >= 0xd800 && code <= 0xdfff) || code >= 0xfffe) return "\ufffd";
  return code < 0x100 ? `\\x${code.toString(16).padStart(2, "0")}` : `\\u${code.toString(16).padStart(4, "0")}`;
}

/**
 * A token's text with every unsafe character made visible (newline ↵, tab ⇥, other controls and
 * formatting characters as escapes such as "\x00", "\x85" or "\u202e", non-characters as
 * U+FFFD); "" as ∅.
 * @param {string} text
 */
export function displayToken(text) {
  return text === "" ? "\u2205" : text.replace(UNSAFE, visible);
}

/** Characters XML 1.0 does not allow (lone surrogates included). */
const NOT_XML = /[^\t\n\r\u0020-\ud7ff\ue000-\ufffd\u{10000}-\u{10ffff}]/gu;

/**
 * Text that can sit in an XML 1.0 document: characters XML forbids become U+FFFD.
 * @param {string} text
 */
export function xmlText(text) {
  return text.replace(NOT_XML, "\ufffd");
}

/**
 * A token as displayToken shows it, cut to ``max`` characters (code points) with an ellipsis.
 * @param {string} token @param {number} max
 */
export function clippedToken(token, max) {
  const chars = Array.from(displayToken(token));
  return chars.length > max ? `${chars.slice(0, max - 1).join("")}…` : chars.join("");
}
