// Token scores (gradient or blank-out attributions) as bars in the left label column,
// one per token, beside the graph. Signed methods use two colours. Under the plot: what the bars
// show, their key, and the tokens with the largest scores, ranked.

import { decodeEnvelope, rowEntries } from "./codec.js";
import { speaker, tr } from "./i18n.js";
import { rowCenter } from "./layout.js";
import { element, formatValue } from "./overlay.js";
import { clippedToken } from "./text.js";

/** Tokens in the ranked list under the plot. */
export const RANKED = 5;

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
 * The tokens with the largest scores, largest first: by |score| for a signed method (a strong negative
 * matters as much), by score for an unsigned one. Ties keep the tokens' order.
 * @param {Float64Array} scores @param {boolean} signed @param {number} [count]
 * @returns {number[]}  token indices
 */
export function rankedTokens(scores, signed, count = RANKED) {
  const size = (/** @type {number} */ i) => (signed ? Math.abs(scores[i]) : scores[i]);
  return Array.from(scores, (_, i) => i)
    .filter((i) => scores[i] !== 0)
    .sort((a, b) => size(b) - size(a) || a - b)
    .slice(0, count);
}

/**
 * The key of the bars (a swatch per colour, with what it means) and the ranked tokens, as DOM (token text
 * through textContent only). The line above them names the method and the target.
 * @param {Document} doc @param {Float64Array} scores @param {boolean} signed
 * @param {string[]} tokens @param {string} lang
 */
function keyAndRanking(doc, scores, signed, tokens, lang) {
  const say = speaker(lang);
  /** Words kept on one line, after a bar colour's swatch (if any). @param {boolean | null} negative @param {string} words */
  const entry = (negative, words) => {
    const pair = element(doc, "span", "attnw-strip-pair");
    if (negative !== null)
      pair.append(element(doc, "span", negative ? "attnw-strip-swatch attnw-bar-negative" : "attnw-strip-swatch"));
    pair.append(words);
    return pair;
  };
  const key = element(doc, "div", "attnw-strip-key");
  if (signed) {
    key.append(
      entry(false, say("positive: pushes the target up")),
      " ", // the line may break between entries only
      entry(true, say("negative: pushes it down")),
      " ",
      entry(null, say("bar length: the score's size")),
    );
  } else key.append(entry(false, say("bar length: the score (never negative)")));
  const ranking = element(doc, "div", "attnw-strip-rank");
  const ranked = rankedTokens(scores, signed);
  const label = element(doc, "span", "attnw-strip-pair");
  label.textContent = say(ranked.length === 1 ? "Largest score:" : "Largest {n} scores:", { n: ranked.length });
  ranking.append(label);
  ranked.forEach((i, place) => {
    const item = element(doc, "span", "attnw-strip-ranked");
    item.dataset.index = String(i);
    const value = formatValue(scores[i]);
    item.textContent = `${place + 1}. “${clippedToken(tokens[i] ?? "", 24)}” ${signed && scores[i] > 0 ? "+" : ""}${value}`;
    ranking.append(" ", item);
  });
  return [key, ranking];
}

/**
 * What the bars show (or what is being computed), with their key and the tokens with the largest
 * scores, and below it the warning that came with the scores, if any.
 * @param {HTMLElement} line
 * @param {HTMLElement} warningLine
 * @param {AttributionData} data
 * @param {string} method
 * @param {import("./state.js").AttributionMeta[]} menu  the token-score methods (labels)
 * @param {string} targetLabel
 * @param {Float64Array | null} scores
 * @param {string} lang  the language of the words (i18n.js)
 * @param {string[]} [tokens]  the tokens the scores are of (the ranked list names them)
 */
export function renderStripStatus(line, warningLine, data, method, menu, targetLabel, scores, lang, tokens = []) {
  const warning = scores && typeof data.warning === "string" ? data.warning : "";
  warningLine.hidden = !warning;
  warningLine.textContent = warning ? `⚠ ${warning}` : "";
  line.hidden = !method;
  if (!method) return;
  const entry = menu.find((meta) => meta.id === method);
  const name = entry?.label ?? method;
  if (data.status === "error" && data.method === method) {
    line.textContent = tr(lang, "Token scores ({name}) failed: {message}", { name, message: String(data.message) });
  } else if (scores) {
    let max = 0;
    for (const v of scores) max = Math.max(max, Math.abs(v));
    const what = element(line.ownerDocument, "div", "attnw-strip-what");
    what.textContent = tr(lang, "Bars: {name} of {target}; longest {max}", {
      name,
      target: targetLabel,
      max: formatValue(max),
    });
    const signed = Boolean(entry?.signed);
    line.replaceChildren(what, ...keyAndRanking(line.ownerDocument, scores, signed, tokens, lang));
  } else {
    const share =
      data.status === "running" && data.total ? ` ${Math.round(((data.done ?? 0) / data.total) * 100)}%` : "";
    // While running, the kernel may say why nothing moves: another computation holds the model.
    const waiting = data.status === "running" && data.message ? ` ${data.message}` : "";
    line.textContent = tr(lang, "Computing {name}…", { name }) + share + waiting;
  }
}
