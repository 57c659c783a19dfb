// The parts of the plot that show where a long input's token window is: the minimap and the
// markers of edges leaving the rows shown. view.js calls these after painting a picture.

import { colormap } from "./colormap.js";
import { isLong } from "./frames.js";
import { createMarkers } from "./markers.js";
import { createMinimap } from "./minimap.js";
import { minimapValues, offWindowMarkers } from "./navigate.js";
import { isHighlighted } from "./scene.js";

/** The rows a layout shows, as a window. @param {import("./layout.js").Layout} layout */
export function windowOf(layout) {
  return { start: layout.first, size: layout.last - layout.first + 1 };
}

/** @param {Document} doc @param {string} lang  the language of the words (i18n.js) */
export function createNavigationView(doc, lang) {
  const minimap = createMinimap(doc, lang);
  const markers = createMarkers(doc, lang);

  return {
    minimap,
    markers,
    /** Elements to place in the plot. */
    roots: [markers.root, minimap.root],
    /**
     * @param {import("./frames.js").LayerFrame} frame @param {import("./scene.js").Scene} scene @param {boolean} dark
     */
    paintLayer(frame, scene, dark) {
      const { layout, edges, state, focus } = frame;
      // Under a highlight (a hovered or pinned token) the markers count the highlighted edges.
      const highlight = scene.bundles[0]?.highlight ?? null;
      const shown = layout.band > 0 && frame.available ? offWindowMarkers(edges, windowOf(layout), highlight) : [];
      markers.render(shown, layout, state.tokens, Boolean(state.method.integer));
      const values = isLong(layout.n) ? minimapValues(edges, layout.n, focus) : null;
      minimap.paint(values && { layout, values, table: colormap(dark ? "dark" : "light"), ink: scene.ink });
    },
    /**
     * The whole-model view: one marker above and one below for every layer's edges leaving the
     * window (the traced paths' under a highlight), at the left; the strongest relative to its
     * layer's largest weight (colours are scaled per layer). The minimap shows the last layer's
     * column mass.
     * @param {import("./frames.js").ModelFrame} frame @param {import("./scene.js").Scene} scene @param {boolean} dark
     */
    paintModel(frame, scene, dark) {
      const { layout, perLayer } = frame;
      /** @type {Map<string, import("./navigate.js").Marker & { share: number }>} */
      const merged = new Map();
      if (layout.band > 0) {
        const highlighted = isHighlighted(scene);
        const shown = windowOf(layout);
        perLayer.forEach((edges, l) => {
          const bundle = scene.bundles[l];
          for (const m of offWindowMarkers(edges, shown, highlighted ? (bundle?.highlight ?? new Set()) : null)) {
            const share = edges.max > 0 ? Math.abs(m.weight) / edges.max : 0;
            const seen = merged.get(m.direction);
            if (!seen) merged.set(m.direction, { ...m, side: "source", share });
            else {
              seen.count += m.count;
              if (share > seen.share) Object.assign(seen, { index: m.index, weight: m.weight, share });
            }
          }
        });
      }
      markers.render([...merged.values()], layout, frame.state.tokens, false);
      const last = perLayer[perLayer.length - 1];
      const values = isLong(layout.n) && last ? minimapValues(last, layout.n, null) : null;
      minimap.paint(values && { layout, values, table: colormap(dark ? "dark" : "light"), ink: scene.ink });
    },
    hide() {
      minimap.paint(null);
      markers.clear();
    },
  };
}
