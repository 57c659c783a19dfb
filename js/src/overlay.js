// DOM parts drawn over and around the canvas: token labels, column titles,
// the hover tooltip, the legend. Token text is untrusted: textContent only.

import { colorAt } from "./colormap.js";
import { tr } from "./i18n.js";
import { FOCUS_CLEARANCE, FOCUS_LABEL, HEADER_HEIGHT, isLabelled, LABEL_GAP, rowCenter } from "./layout.js";
import { probe } from "./probes.js";
import { clippedToken, displayToken } from "./text.js";

const TOOLTIP_ROWS = 10;
/** Characters of a token the tooltip shows at most (a label's title shows all of it). */
const TOOLTIP_TOKEN = 48;

/**
 * @param {Document} doc
 * @param {string} tag
 * @param {string} className
 * @param {string} [text]
 */
export function element(doc, tag, className, text) {
  const node = doc.createElement(tag);
  node.className = className;
  if (text !== undefined) node.textContent = text;
  return node;
}

/**
 * Place one column of token labels.
 * @param {HTMLElement} container
 * @param {import("./layout.js").Layout} layout
 * @param {string[]} tokens
 * @param {boolean[]} special
 * @param {"source" | "target"} side
 */
export function renderLabels(container, layout, tokens, special, side) {
  container.replaceChildren();
  // Rows too short for a label each: every labelEvery-th row is labelled, in a box as tall as
  // labelEvery rows, so that no two labels overlap (markHovered adds the focused tokens' own).
  const box = layout.rowHeight * layout.labelEvery;
  placedIn.set(container, { layout, tokens, special, side });
  for (let i = layout.first; i <= Math.min(layout.last, tokens.length - 1); i++) {
    if (isLabelled(layout, i)) container.append(tokenLabel(container, i, box)); // else thinned
  }
}

/**
 * Per column of labels, what renderLabels last placed: markHovered labels a focused token of a
 * thinned row from it.
 * @type {WeakMap<HTMLElement, { layout: import("./layout.js").Layout, tokens: string[], special: boolean[], side: "source" | "target" }>}
 */
const placedIn = new WeakMap();

/**
 * One token's label in a column renderLabels filled: `box` px tall, centred on its row.
 * @param {HTMLElement} container @param {number} i @param {number} box
 */
function tokenLabel(container, i, box) {
  const { layout, tokens, special, side } = /** @type {NonNullable<ReturnType<typeof placedIn.get>>} */ (
    placedIn.get(container)
  );
  const label = element(container.ownerDocument, "div", "attnw-token", displayToken(tokens[i]));
  if (special[i]) label.classList.add("attnw-special");
  label.dataset.index = String(i);
  label.style.top = `${rowCenter(layout, i) - box / 2}px`;
  label.style.height = `${box}px`;
  label.style.lineHeight = `${box}px`;
  label.style.width = `${layout.leftX - LABEL_GAP}px`;
  label.style.left = side === "source" ? "0px" : `${layout.rightX + LABEL_GAP}px`;
  label.title = `\u2068${displayToken(tokens[i])}\u2069 (#${i})`; // isolated: right-to-left text keeps to itself
  return label;
}

/**
 * The label of a focused token on a thinned row (none of its own): added over the others, tinted
 * (widget.css), and the neighbours' labels whose text it would touch hidden; null where the row is
 * not shown.
 * @param {HTMLElement} column @param {number} index
 */
function focusLabel(column, index) {
  const placed = placedIn.get(column);
  if (!placed || index < placed.layout.first || index > placed.layout.last) return null;
  const label = tokenLabel(column, index, FOCUS_LABEL);
  label.classList.add("attnw-token-focus");
  const centre = rowCenter(placed.layout, index);
  for (const other of /** @type {NodeListOf<HTMLElement>} */ (
    column.querySelectorAll(".attnw-token:not(.attnw-token-focus)")
  )) {
    // A label's text is a line at its box's middle.
    const middle = Number.parseFloat(other.style.top) + Number.parseFloat(other.style.height) / 2;
    if (Math.abs(middle - centre) < FOCUS_CLEARANCE) other.classList.add("attnw-covered");
  }
  column.append(label);
  return label;
}

/**
 * Mark the hovered (or keyboard-focused) and the pinned token's labels.
 * @param {HTMLElement} root
 * @param {{ side: string, index: number } | null} node
 * @param {{ side: string, index: number } | null} [pinned]
 */
export function markHovered(root, node, pinned = null) {
  for (const name of ["attnw-hovered", "attnw-pinned", "attnw-covered"]) {
    for (const label of root.querySelectorAll(`.attnw-token.${name}`)) label.classList.remove(name);
  }
  for (const label of root.querySelectorAll(".attnw-token-focus")) label.remove();
  /** @param {{ side: string, index: number } | null} at @param {string} name */
  const mark = (at, name) => {
    if (!at) return;
    if (!Number.isInteger(at.index)) return; // put in a selector: a number only, never text as given
    const column = /** @type {HTMLElement | null} */ (
      root.querySelector(at.side === "source" ? ".attnw-labels-left" : ".attnw-labels-right")
    );
    if (!column) return;
    // A thinned row has no label: the focused token gets one all the same.
    const label = column.querySelector(`[data-index="${at.index}"]`) ?? focusLabel(column, at.index);
    label?.classList.add(name);
  };
  mark(pinned, "attnw-pinned");
  mark(node, "attnw-hovered"); // after: a label added for it lies over the pinned token's
}

/**
 * Fade the labels of rows no drawn edge touches (an encoder-decoder's cross-attention leaves the
 * target rows on the left and the source rows on the right without edges), or none (edges null).
 * @param {HTMLElement} left @param {HTMLElement} right
 * @param {import("./edges.js").EdgeList | null} edges
 */
export function markIdle(left, right, edges) {
  for (const [column, ends] of /** @type {const} */ ([
    [left, edges?.source],
    [right, edges?.target],
  ])) {
    const used = ends ? new Set(ends.subarray(0, /** @type {import("./edges.js").EdgeList} */ (edges).count)) : null;
    for (const label of /** @type {NodeListOf<HTMLElement>} */ (column.querySelectorAll(".attnw-token"))) {
      label.classList.toggle("attnw-idle", used !== null && !used.has(Number(label.dataset.index)));
    }
  }
}

/**
 * The token labels of a plot's two outer columns, rebuilt only when the rows shown or the tokens change
 * (the tokens compared by reference: readState passes the trait's own array on), and their faded
 * (idle) rows, marked only when the edges that decide them change.
 * @param {HTMLElement} left @param {HTMLElement} right
 */
export function tokenColumns(left, right) {
  let key = "";
  /** @type {string[] | null} */
  let tokens = null;
  /** @type {import("./edges.js").EdgeList | null} */
  let idleOf = null;
  return {
    /** @param {import("./layout.js").Layout} layout @param {{ tokens: string[], special: boolean[] }} state */
    render(layout, state) {
      const now = `${layout.width} ${layout.n} ${layout.first} ${layout.last}`;
      if (now === key && state.tokens === tokens) return;
      [key, tokens, idleOf] = [now, state.tokens, null];
      renderLabels(left, layout, state.tokens, state.special, "source");
      renderLabels(right, layout, state.tokens, state.special, "target");
    },
    /** Fade the rows no edge of ``edges`` touches (null: none faded). @param {import("./edges.js").EdgeList | null} edges */
    markIdle(edges) {
      if (edges !== idleOf) {
        idleOf = edges;
        markIdle(left, right, idleOf);
      }
    },
  };
}

/**
 * Mark the target position (the row compared with the token scores) in the right column.
 * @param {HTMLElement} column
 * @param {number | null | undefined} position
 */
export function markTarget(column, position) {
  for (const label of column.querySelectorAll(".attnw-target-row")) label.classList.remove("attnw-target-row");
  if (!Number.isInteger(position)) return; // put in a selector: a number only, never text as given
  column.querySelector(`[data-index="${position}"]`)?.classList.add("attnw-target-row");
}

/**
 * @param {HTMLElement} left
 * @param {HTMLElement} right
 * @param {[string, string]} titles
 */
export function renderTitles(left, right, titles) {
  left.textContent = titles[0];
  right.textContent = titles[1];
  left.style.height = right.style.height = `${HEADER_HEIGHT}px`;
}

/**
 * Fill the tooltip with the hovered token and its strongest edges.
 * @param {HTMLElement} tooltip
 * @param {object} args
 * @param {{ side: "source" | "target", index: number }} args.node
 * @param {string[]} args.tokens
 * @param {import("./edges.js").EdgeList} args.edges
 * @param {number[]} args.touching   edge indices, strongest first
 * @param {string} args.columnTitle
 * @param {number} args.coverage     share of the row's mass stored (target side)
 * @param {[string, number] | null} [args.rowNote]  a per-row quantity of the method: label, value
 * @param {[string, number] | null} [args.scoreNote]  the token's attribution score: label, value
 * @param {boolean} [args.pinned]  the token is pinned (click or Enter again to unpin)
 * @param {boolean} [args.integer]  the weights are whole numbers (path counts)
 * @param {string} [args.lang]  the language of the words (i18n.js)
 * @param {ListCompare | null} [args.compare]  what a comparison adds (compare_pane.js)
 */
export function renderTooltip(
  tooltip,
  {
    node,
    tokens,
    edges,
    touching,
    columnTitle,
    coverage,
    rowNote = null,
    scoreNote = null,
    pinned = false,
    integer = false,
    lang = "en",
    compare = null,
  },
) {
  const doc = tooltip.ownerDocument;
  tooltip.replaceChildren();
  const title = element(
    doc,
    "div",
    "attnw-tooltip-title",
    `${compare?.title ?? ""}${pinned ? tr(lang, "Pinned · ") : ""}`,
  );
  const says = tr(lang, node.side === "target" ? "{column} draws on:" : "{column} feeds:", { column: columnTitle });
  title.append(...quotedToken(doc, tokens[node.index], node.index), ` · ${says}`);
  tooltip.append(title);
  const list = element(doc, "table", "attnw-tooltip-list");
  for (const e of touching.slice(0, TOOLTIP_ROWS)) {
    const other = node.side === "target" ? edges.source[e] : edges.target[e];
    const row = element(doc, "tr", "");
    row.dataset.index = String(other); // the other token, for hosts and tests
    const token = element(doc, "td", "attnw-tooltip-token");
    token.append(...quotedToken(doc, tokens[other], other));
    row.append(token, element(doc, "td", "attnw-tooltip-value", formatValue(edges.weight[e], integer)));
    const second = compare?.second?.get(other);
    if (compare?.second)
      row.append(
        element(
          doc,
          "td",
          "attnw-tooltip-value attnw-tooltip-compare",
          second === undefined ? "–" : compare.format(second),
        ),
      );
    list.append(row);
  }
  tooltip.append(list);
  if (touching.length > TOOLTIP_ROWS) {
    tooltip.append(
      element(doc, "div", "attnw-tooltip-more", tr(lang, "… and {n} more", { n: touching.length - TOOLTIP_ROWS })),
    );
  }
  if (touching.length === 0) tooltip.append(element(doc, "div", "attnw-tooltip-more", tr(lang, "no edges")));
  if (rowNote) tooltip.append(element(doc, "div", "attnw-tooltip-more", `${rowNote[0]}: ${formatValue(rowNote[1])}`));
  if (scoreNote)
    tooltip.append(element(doc, "div", "attnw-tooltip-more", `${scoreNote[0]}: ${formatValue(scoreNote[1])}`));
  if (node.side === "target" && coverage < 0.9995) {
    tooltip.append(
      element(
        doc,
        "div",
        "attnw-tooltip-more",
        tr(lang, "stored edges carry {share}% of this row", { share: (coverage * 100).toFixed(1) }),
      ),
    );
  }
  tooltip.hidden = false;
}

/**
 * “token” #index, the token cut to TOOLTIP_TOKEN characters and in a <bdi>: right-to-left text
 * cannot reorder what follows it.
 * @param {Document} doc @param {string} token @param {number} index
 */
function quotedToken(doc, token, index) {
  return ["“", element(doc, "bdi", "attnw-tooltip-text", clippedToken(token, TOOLTIP_TOKEN)), `” #${index}`];
}

/**
 * @param {number} value
 * @param {boolean} [integer]  the method's values are whole numbers (its meta's `integer`): printed rounded,
 *   since the payload quantises each row to 16 bits (3 comes back as 2.99998; exact while a row's largest is below 65,535)
 */
export function formatValue(value, integer = false) {
  if (integer) return String(Math.round(value));
  if (value === 0) return "0";
  const abs = Math.abs(value);
  if (abs >= 0.001) return value.toFixed(4);
  return value.toExponential(2);
}

/**
 * What the colour scale spans, in words: "colour: this token's edges, 0 to 0.31".
 * @param {import("./scene.js").ScaleInfo} scale @param {boolean} signed @param {boolean} integer @param {string} lang
 */
export function scaleText(scale, signed, integer, lang) {
  /** Two significant digits: a line to read at a glance (the bar's ends give four decimals). @param {number} v */
  const short = (v) => (integer ? String(Math.round(v)) : String(Number(v.toPrecision(2))));
  const range = { low: signed ? short(-scale.low) : "0", high: short(scale.high) };
  if (scale.of === "focus") {
    const text = tr(lang, "colour: this token's edges, {low} to {high}", range);
    // Signed, each side runs to its own end (scene.js): -0.01 is as blue as +0.1 is red; widths keep one scale.
    return signed && scale.low !== scale.high
      ? text + tr(lang, " (blue and red each to their own end; width by size)")
      : text;
  }
  if (scale.of === "paths") {
    const text = tr(
      lang,
      "colour: the traced paths' edges, each layer's own range (the largest: {low} to {high})",
      range,
    );
    return signed && scale.low !== scale.high
      ? text + tr(lang, " (blue and red each to their own end; width by size)")
      : text;
  }
  if (scale.of === "layers") return tr(lang, "colour: each layer's own range (the largest: {low} to {high})", range);
  const all = tr(lang, "colour: all edges drawn, {low} to {high}", range);
  return scale.selfOnly > 0
    ? all + tr(lang, " (not counting {value}: a token that sees only itself)", { value: short(scale.selfOnly) })
    : all;
}

/**
 * @typedef {object} LegendCompare  what a comparison adds to the legend (compare_pane.js)
 * @property {string[]} notes  lines after the view's: the shared scale, the second pane's edges
 * @property {string} [coveragePrefix]  put before the view's coverage line (the first pane's method)
 * @property {string} [coverage]  the coverage line in place of the view's (a difference's edges)
 * @property {boolean} [plusHigh]  the high end is a signed difference: "+max"
 * @property {boolean} [hidden]  nothing to show yet (the difference waits for the second method)
 */

/**
 * @typedef {object} ListCompare  what a comparison adds to the value list (compare_pane.js)
 * @property {string} title  put before the list's title
 * @property {Map<number, number> | null} second  side by side: the second method's value per other token
 *   (a column beside the first's; "–" where it draws no edge)
 * @property {(v: number) => string} format  how the second column's values are written
 */

/**
 * Colour bar with its range and the share of the rows' weight (the attention, for attention weights) the drawn
 * edges cover.
 * @param {HTMLElement} legend
 * @param {object} args
 * @param {string[]} args.table
 * @param {boolean} args.signed
 * @param {number} args.max
 * @param {number} args.meanCoverage
 * @param {number} args.minCoverage
 * @param {number} args.edgeCount
 * @param {number} [args.drawnShare]      share of the stored weight the drawn edges carry
 * @param {string} [args.rowLabel]        label of the method's per-row quantity
 * @param {number | null} [args.rowMean]  its mean over the rows of this slice
 * @param {boolean} [args.integer]        the weights are whole numbers (path counts)
 * @param {boolean} [args.attention]      the weights are attention weights (the method's attention_weights):
 *   the drawn edges' share is "of the attention", else of the rows' totals (their sizes, when signed)
 * @param {string} [args.lang]             the language of the words (i18n.js)
 * @param {LegendCompare | null} [args.compare]  what a comparison adds (compare_pane.js)
 * @param {import("./scene.js").ScaleInfo | null} [args.scale]  the colour scale in use (scene.js): its
 *   ends in place of ±max, and a line saying which edges it spans
 */
export function renderLegend(
  legend,
  {
    table,
    signed,
    max,
    meanCoverage,
    minCoverage,
    edgeCount,
    drawnShare = 1,
    rowLabel = "",
    rowMean = null,
    integer = false,
    attention = false,
    lang = "en",
    compare = null,
    scale = null,
  },
) {
  const doc = legend.ownerDocument;
  legend.replaceChildren();
  const stops = table.filter((_, i) => i % 32 === 0 || i === table.length - 1);
  const bar = element(doc, "span", "attnw-legend-bar");
  bar.style.background = `linear-gradient(to right, ${stops.join(", ")})`;
  const [low, high] = scale ? [scale.low, scale.high] : [max, max];
  legend.append(
    element(doc, "span", "attnw-legend-label", signed ? formatValue(-low, integer) : "0"),
    bar,
    element(doc, "span", "attnw-legend-label", `${compare?.plusHigh ? "+" : ""}${formatValue(high, integer)}`),
  );
  if (scale) {
    const line = element(
      doc,
      "span",
      "attnw-legend-coverage attnw-legend-scale",
      scaleText(scale, signed, integer, lang),
    );
    probe(line, { scale: scale.of, low: String(signed ? -low : 0), high: String(high) });
    legend.append(line);
  }
  const share = meanCoverage * drawnShare;
  /** @param {number} x */
  const percent = (x) => (x * 100).toFixed(1);
  // "Of the attention" only where the edges are attention weights: ALTI's or rollout's rows are not.
  const coverageText =
    minCoverage >= 0.9995 && drawnShare >= 0.9995
      ? tr(lang, attention ? "{n} edges, all of the attention drawn" : "{n} edges, all of each row drawn", {
          n: edgeCount,
        })
      : tr(
          lang,
          attention
            ? "{n} edges carrying {share}% of the attention"
            : signed
              ? "{n} edges carrying {share}% of the rows' total size"
              : "{n} edges carrying {share}% of the rows' totals",
          { n: edgeCount, share: percent(share) },
        ) +
        (minCoverage < 0.9995
          ? tr(lang, " (the data keeps {mean}% per row on average, least {least}%)", {
              mean: percent(meanCoverage),
              least: percent(minCoverage),
            })
          : "");
  legend.append(
    element(
      doc,
      "span",
      "attnw-legend-coverage",
      compare?.coverage ?? `${compare?.coveragePrefix ?? ""}${coverageText}`,
    ),
  );
  if (rowLabel && rowMean !== null) {
    legend.append(
      element(
        doc,
        "span",
        "attnw-legend-coverage",
        tr(lang, "{label}: {value} per row on average", { label: rowLabel, value: formatValue(rowMean) }),
      ),
    );
  }
  for (const note of compare?.notes ?? [])
    legend.append(element(doc, "span", "attnw-legend-coverage attnw-legend-compare", note));
  // Tests and screen readers can read the scale's maximum without parsing text.
  probe(legend, { max: String(max), mid: colorAt(table, 0.5, false), share: String(share) });
}
