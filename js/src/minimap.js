// The minimap of a long input: a thin strip beside the graph with one tick per token of the whole
// text, coloured by what navigate.js minimapValues gives, and a box over the rows shown.
// Dragging on it is wired in navigate_events.js.

import { HEADER_HEIGHT } from "./layout.js";
import { navigateWords } from "./navigate.js";
import { element } from "./overlay.js";
import { probe } from "./probes.js";

/** Width the plot leaves for the minimap at its right edge, in CSS pixels. */
export const MINIMAP_ROOM = 18;
const STRIP = 10;

/**
 * @param {Document} doc
 * @param {string} lang  the language of the words (i18n.js)
 */
export function createMinimap(doc, lang) {
  const root = element(doc, "div", "attnw-minimap");
  root.title = navigateWords(lang).minimap;
  root.setAttribute("aria-hidden", "true"); // the keys and the window control do the same
  const canvas = /** @type {HTMLCanvasElement} */ (element(doc, "canvas", "attnw-minimap-ticks"));
  const box = element(doc, "div", "attnw-minimap-window");
  root.append(canvas, box);
  root.hidden = true;
  /** @type {{ top: number, height: number, n: number } | null} */
  let shown = null;

  return {
    root,
    /**
     * Show the strip for the whole text, or hide it (args null: the input fits, or no graph).
     * @param {{ layout: import("./layout.js").Layout, values: Float64Array, table: string[], ink: string } | null} args
     */
    paint(args) {
      root.hidden = !args;
      if (!args) {
        shown = null;
        return;
      }
      const { layout, values, table, ink } = args;
      const n = values.length;
      const top = HEADER_HEIGHT;
      const height = layout.height - HEADER_HEIGHT - 4;
      shown = { top, height, n };
      Object.assign(root.style, {
        left: `${layout.width + (MINIMAP_ROOM - STRIP) / 2}px`,
        top: `${top}px`,
        width: `${STRIP}px`,
        height: `${height}px`,
      });
      const dpr = doc.defaultView?.devicePixelRatio || 1;
      const [w, h] = [Math.round(STRIP * dpr), Math.round(height * dpr)];
      // Setting a canvas's size clears and reallocates its bitmap, even to the same size.
      if (canvas.width !== w || canvas.height !== h) [canvas.width, canvas.height] = [w, h];
      canvas.style.width = `${STRIP}px`;
      canvas.style.height = `${height}px`;
      const ctx = canvas.getContext("2d");
      if (ctx) {
        ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
        ctx.clearRect(0, 0, STRIP, height);
        let max = 0;
        for (const v of values) max = Math.max(max, v);
        const tick = height / n;
        for (let i = 0; i < n; i++) {
          // Square root, from a third of the scale up: a weak weight stays visible beside a
          // dominant one ([CLS], say), and any weight at all stands out from the empty ticks.
          const t = max > 0 && values[i] > 0 ? 0.3 + 0.7 * Math.sqrt(values[i] / max) : 0;
          ctx.globalAlpha = t > 0 ? 0.5 + 0.5 * t : 0.12;
          ctx.fillStyle = t > 0 ? table[Math.round(t * (table.length - 1))] : ink;
          ctx.fillRect(0, i * tick, STRIP, Math.max(tick, 0.75));
        }
        ctx.globalAlpha = 1;
      }
      const size = layout.last - layout.first + 1;
      box.style.top = `${(layout.first / n) * height}px`;
      box.style.height = `${(size / n) * height}px`;
      probe(root, { first: String(layout.first), last: String(layout.last), n: String(n) });
    },
    /** The token at a page height on the strip (clamped to the text), or null when hidden. @param {number} clientY */
    rowAt(clientY) {
      if (!shown) return null;
      const y = clientY - root.getBoundingClientRect().top;
      return Math.max(0, Math.min(shown.n - 1, Math.floor((y / shown.height) * shown.n)));
    },
  };
}
