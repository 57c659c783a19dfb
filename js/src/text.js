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

/**
 * Lines of `text` no wider than `width` (as `measure` gives widths), broken at spaces; a word wider than a
 * line (a long token, or text without spaces such as Chinese) is broken between characters.
 * @param {string} text @param {number} width @param {(text: string) => number} measure
 * @returns {string[]}  at least one line
 */
export function wrapText(text, width, measure) {
  /** @type {string[]} */
  const lines = [];
  let line = "";
  for (const word of text.split(/(?<= )/)) {
    if (measure(line + word.trimEnd()) <= width) {
      line += word;
      continue;
    }
    if (line.trim()) lines.push(line.trimEnd());
    line = "";
    for (const char of Array.from(word)) {
      if (line && measure((line + char).trimEnd()) > width) {
        lines.push(line.trimEnd());
        line = "";
      }
      line += char;
    }
  }
  if (line.trim() || lines.length === 0) lines.push(line.trimEnd());
  return lines;
}

/**
 * A text width measure for `font` from a canvas of `doc`, or, where there is none (jsdom), an estimate
 * for a 12 px sans-serif (wide characters 12 px, others 7 px).
 * @param {Document} doc @param {string} [font]
 * @returns {(text: string) => number}
 */
export function textMeasure(doc, font = "12px sans-serif") {
  const ctx = doc.defaultView?.navigator.userAgent.includes("jsdom")
    ? null
    : /** @type {HTMLCanvasElement} */ (doc.createElement("canvas")).getContext("2d");
  if (ctx) {
    ctx.font = font;
    return (text) => ctx.measureText(text).width;
  }
  return (text) => Array.from(text).reduce((sum, char) => sum + ((char.codePointAt(0) ?? 0) >= 0x2e80 ? 12 : 7), 0);
}

const SVG = "http://www.w3.org/2000/svg";

/**
 * An empty SVG drawing `width` × `height` (sans-serif, 12 px) filled with `background`, and `add`, which puts an
 * element into it (or into `parent`) with its attributes made XML-safe.
 * @param {Document} doc @param {number} width @param {number} height @param {string} background
 */
export function svgDrawing(doc, width, height, background) {
  const svg = doc.createElementNS(SVG, "svg");
  const size = { width, height, viewBox: `0 0 ${width} ${height}`, "font-family": "sans-serif", "font-size": 12 };
  for (const [name, value] of Object.entries(size)) svg.setAttribute(name, String(value));
  /** @param {string} tag @param {Record<string, string | number>} attributes @param {Element} [parent] */
  const add = (tag, attributes, parent = svg) => {
    const node = doc.createElementNS(SVG, tag);
    for (const [name, value] of Object.entries(attributes)) node.setAttribute(name, xmlText(String(value)));
    parent.append(node);
    return node;
  };
  add("rect", { width: "100%", height: "100%", fill: background });
  return { svg, add };
}
