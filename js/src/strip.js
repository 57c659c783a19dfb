// Token scores (gradient or blank-out attributions) as bars in the left label column,
// one per token, beside the graph. Signed methods use two colours.

import { decodeEnvelope, rowEntries } from "./codec.js";
import { tr } from "./i18n.js";
import { rowCenter } from "./layout.js";
import { element, formatValue } from "./overlay.js";

/**
 * @typedef {object} AttributionData  the widget's `attribution_data` trait
 * @property {string} [target]
 * @property {string} [method]
 * @property {"running" | "done" | "error"} [status]
 * @property {number} [done]
 * @property {number} [total]
 * @property {DataView | ArrayBuffer | null} [values]
 * @property {string} [message]
 * @property {string | null} [warning]  with "done": why the scores may be less exact than asked
 */

/**
 * The scores of the selected target and method, or null when they are not there (yet).
 * @param {AttributionData} data
 * @param {string} target
 * @param {string} method
 * @param {number} n  tokens: the scores must have one per token
 * @returns {Float64Array | null}
 */
export function currentScores(data, target, method, n) {
  if (!method || data.status !== "done" || data.target !== target || data.method !== method || !data.values) {
    return null;
  }
  const env = decodeEnvelope(data.values);
  if (env.slices !== 1 || env.rows !== 1 || env.cols !== n) {
    throw new Error(`the token scores have shape [${env.shape}], not one score for each of the ${n} tokens`);
  }
  const { cols, values } = rowEntries(env, 0, 0);
  const out = new Float64Array(env.cols);
  for (let i = 0; i < values.length; i++) out[cols[i]] = values[i];
  return out;
}

/**
 * Draw one bar per token, right-aligned against the graph in the left label column.
 * @param {HTMLElement} container
 * @param {import("./layout.js").Layout} layout
 * @param {Float64Array | null} scores
 */
export function renderStrip(container, layout, scores) {
  container.replaceChildren();
  container.hidden = scores === null;
  if (!scores) return;
  const doc = container.ownerDocument;
  let max = 0;
  for (const v of scores) max = Math.max(max, Math.abs(v));
  const room = layout.leftX - 8;
  scores.forEach((value, i) => {
    if (i < layout.first || i > layout.last) return; // outside the token window
    const bar = element(doc, "div", value < 0 ? "attnw-bar attnw-bar-negative" : "attnw-bar");
    const height = Math.max(1, layout.rowHeight * 0.7);
    bar.style.top = `${rowCenter(layout, i) - height / 2}px`;
    bar.style.height = `${height}px`;
    bar.style.width = `${max > 0 ? (Math.abs(value) / max) * room : 0}px`;
    bar.style.left = `${layout.leftX - 4 - (max > 0 ? (Math.abs(value) / max) * room : 0)}px`;
    bar.dataset.value = String(value);
    container.append(bar);
  });
}

/**
 * One line saying what the bars show, or what is being computed, and below it the warning that
 * came with the scores, if any.
 * @param {HTMLElement} line
 * @param {HTMLElement} warningLine
 * @param {AttributionData} data
 * @param {string} method
 * @param {import("./state.js").AttributionMeta[]} menu  the token-score methods (labels)
 * @param {string} targetLabel
 * @param {Float64Array | null} scores
 * @param {string} lang  the language of the words (i18n.js)
 */
export function renderStripStatus(line, warningLine, data, method, menu, targetLabel, scores, lang) {
  const warning = scores && typeof data.warning === "string" ? data.warning : "";
  warningLine.hidden = !warning;
  warningLine.textContent = warning ? `⚠ ${warning}` : "";
  line.hidden = !method;
  if (!method) return;
  const name = menu.find((entry) => entry.id === method)?.label ?? method;
  if (data.status === "error" && data.method === method) {
    line.textContent = tr(lang, "Token scores ({name}) failed: {message}", { name, message: String(data.message) });
  } else if (scores) {
    let max = 0;
    for (const v of scores) max = Math.max(max, Math.abs(v));
    line.textContent = tr(lang, "Bars: {name} of {target}; longest {max}", {
      name,
      target: targetLabel,
      max: formatValue(max),
    });
  } else {
    const share =
      data.status === "running" && data.total ? ` ${Math.round(((data.done ?? 0) / data.total) * 100)}%` : "";
    // While running, the kernel may say why nothing moves: another computation holds the model.
    const waiting = data.status === "running" && data.message ? ` ${data.message}` : "";
    line.textContent = tr(lang, "Computing {name}…", { name }) + share + waiting;
  }
}
