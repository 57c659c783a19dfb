// Where the value list of the focused token goes: in a column right of the graph (under the
// image of an image analysis, which sits there when the widget is wide), or under the plot in a
// narrow widget. Never over the plot, where it would cover the focused token's paths.

import { PANEL_GAP } from "./image.js";

/** From this widget width on, a text analysis keeps a column for the list right of the graph. */
export const DOCK_BESIDE_FROM = 600;
const DOCK_MIN = 200;
const DOCK_MAX = 260;

/**
 * @typedef {object} Dock
 * @property {number} graphWidth  CSS pixels left to the graph
 * @property {boolean} beside     the list sits in the side column (else under the plot)
 * @property {number} width       of the side column (0 when the list is under the plot)
 * @property {boolean} image      an image analysis: the side column holds the image panel
 */

/**
 * @param {number} total  the widget's width
 * @param {import("./image.js").PanelLayout} panel  where the image panel goes (panelLayout)
 * @param {boolean} image  the widget shows an image
 * @returns {Dock}
 */
export function dockLayout(total, panel, image) {
  if (image)
    return { graphWidth: panel.graphWidth, beside: panel.beside, width: panel.beside ? panel.width : 0, image };
  if (total < DOCK_BESIDE_FROM) return { graphWidth: total, beside: false, width: 0, image };
  const width = Math.max(DOCK_MIN, Math.min(DOCK_MAX, Math.round(total * 0.28)));
  return { graphWidth: total - width - PANEL_GAP, beside: true, width, image };
}
