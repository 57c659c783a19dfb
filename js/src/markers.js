// The labelled markers where edges leave the rows shown for tokens above or below them: one per
// column and direction, with the count and the strongest token outside (navigate.js
// offWindowMarkers). Buttons: a click scrolls to that token (navigate_events.js). Token text
// goes in through textContent only.

import { navigateWords } from "./navigate.js";
import { element, formatValue } from "./overlay.js";
import { clippedToken } from "./text.js";

/** Characters of the strongest token a marker shows at most. */
const TOKEN_CHARS = 12;

/** A weight as short as the marker's room asks: two decimals where that says enough. @param {number} w @param {boolean} integer */
function shortValue(w, integer) {
  return integer || Math.abs(w) < 0.01 ? formatValue(w, integer) : w.toFixed(2);
}

/**
 * @param {Document} doc
 * @param {string} lang  the language of the words (i18n.js)
 */
export function createMarkers(doc, lang) {
  const words = navigateWords(lang);
  const root = element(doc, "div", "attnw-markers");
  /** @type {{ text: string, x: number, y: number, anchor: "start" | "end" }[]} the markers as picture labels */
  let labels = [];
  return {
    root,
    /** The markers shown, as labels for the downloaded pictures (exporter.js). */
    labels: () => labels,
    clear() {
      root.replaceChildren();
      labels = [];
    },
    /**
     * @param {import("./navigate.js").Marker[]} markers
     * @param {import("./layout.js").Layout} layout
     * @param {string[]} tokens
     * @param {boolean} integer  the weights are whole numbers
     */
    render(markers, layout, tokens, integer) {
      root.replaceChildren();
      labels = [];
      root.style.width = `${layout.width}px`;
      for (const marker of markers) {
        const up = marker.direction === "up";
        const button = /** @type {HTMLButtonElement} */ (
          element(doc, "button", `attnw-marker attnw-marker-${marker.direction} attnw-marker-${marker.side}`)
        );
        button.type = "button";
        button.title = words.markerTitle;
        const token = element(doc, "bdi", "attnw-marker-token", clippedToken(tokens[marker.index] ?? "", TOKEN_CHARS));
        button.append(`${words.more(up, marker.count)}: “`, token, `” ${shortValue(marker.weight, integer)}`);
        Object.assign(button.dataset, {
          count: String(marker.count),
          index: String(marker.index),
          side: marker.side,
          direction: marker.direction,
        });
        const y = up
          ? layout.top + layout.first * layout.rowHeight - layout.band
          : layout.top + (layout.last + 1) * layout.rowHeight;
        button.style.top = `${y}px`;
        button.style.height = `${layout.band}px`;
        // Each over its own column of labels, reaching into the edges' room if it needs to.
        if (marker.side === "source") button.style.left = "0px";
        else button.style.right = "0px";
        root.append(button);
        const [x, anchor] =
          marker.side === "source"
            ? [2, /** @type {const} */ ("start")]
            : [layout.width - 2, /** @type {const} */ ("end")];
        labels.push({ text: button.textContent ?? "", x, y: y + layout.band / 2, anchor });
      }
    },
  };
}
