// The DOM of the "all heads" overview (heads_grid.js does its maths): one canvas with a small heat
// map per layer and head, the layer marks and column names around it, a line naming the cell
// under the pointer, and the colour key.

import { colormap } from "./colormap.js";
import {
  cellAt,
  cellOrigin,
  cellSlice,
  headName,
  MARGIN_LEFT,
  MARGIN_TOP,
  slicePixels,
  tableBytes,
} from "./heads_grid.js";
import { speaker } from "./i18n.js";
import { element } from "./overlay.js";
import { probe } from "./probes.js";
import { headLabel, layerMark, layerName } from "./state.js";

/** @param {Document} doc @param {string} lang  the language of the words (i18n.js) */
export function createHeadsGrid(doc, lang) {
  const say = speaker(lang);
  const win = /** @type {Window} */ (doc.defaultView);
  const root = element(doc, "div", "attnw-heads");
  root.hidden = true;
  const hover = element(doc, "div", "attnw-heads-hover");
  const canvas = /** @type {HTMLCanvasElement} */ (element(doc, "canvas", "attnw-heads-canvas"));
  canvas.setAttribute("role", "img");
  canvas.style.cursor = "pointer";
  const key = element(doc, "div", "attnw-heads-key");
  const bar = element(doc, "span", "attnw-heads-bar");
  const keyText = element(doc, "span", "attnw-heads-key-text");
  Object.assign(bar.style, {
    display: "inline-block",
    width: "80px",
    height: "10px",
    marginRight: "6px",
    verticalAlign: "middle",
  });
  key.append(bar, keyText);
  root.append(hover, canvas, key);
  /** @type {import("./heads_grid.js").HeadsFrame | null} */
  let shown = null;
  // One scratch canvas of n × n pixels: each cell's ImageData goes there, then is drawn scaled.
  const scratch = /** @type {HTMLCanvasElement} */ (doc.createElement("canvas"));

  /** The cell under a pointer event, as the layer (1..L) and head it shows. @param {MouseEvent} event */
  const cellUnder = (event) => {
    if (!shown) return null;
    const box = canvas.getBoundingClientRect();
    const at = cellAt(shown.layout, event.clientX - box.left, event.clientY - box.top);
    return at && { layer: at.row + 1, head: shown.heads[at.column] };
  };

  /** @param {{ layer: number, head: number } | null} cell */
  const showHover = (cell) => {
    if (!shown) return;
    const { state } = shown;
    hover.textContent = cell
      ? say("{layer}, {head}: click to open it", {
          layer: capitalised(layerName(state, cell.layer)),
          head: headLabel({ ...state, head: cell.head }),
        })
      : say("Point at a cell to name it; click it to open that layer and head.");
  };

  /**
   * Draw the grid, its layer marks and column names on `target` at `scale` device pixels per CSS pixel.
   * @param {import("./heads_grid.js").HeadsFrame} frame @param {HTMLCanvasElement} target @param {number} scale
   * @param {string} ink  the colour of the text and of the empty boxes
   * @returns {{ cells: import("./heads_export.js").GridCell[], labels: import("./heads_export.js").GridLabel[] }}
   *   what it drew (an SVG export draws the same: heads_export.js)
   */
  const drawGrid = (frame, target, scale, ink) => {
    const { state, layout, heads, env } = frame;
    const dpr = scale;
    target.width = Math.round(layout.width * dpr);
    target.height = Math.round(layout.height * dpr);
    const table = tableBytes(colormap(frame.signed ? "diverging" : "heat"));
    /** @type {import("./heads_export.js").GridCell[]} */
    const cells = [];
    /** @type {import("./heads_export.js").GridLabel[]} */
    const labels = [];
    const ctx = target.getContext("2d");
    if (!ctx) return { cells, labels };
    ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
    ctx.clearRect(0, 0, layout.width, layout.height);
    ctx.fillStyle = ink;
    ctx.font = "11px sans-serif";
    ctx.textAlign = "center";
    ctx.textBaseline = "alphabetic";
    if (state.method.per_head) {
      heads.forEach((head, column) => {
        const label = { text: say(headName(head)), x: cellOrigin(layout, 0, column).x + layout.cell / 2 };
        labels.push({ ...label, y: MARGIN_TOP - 4, anchor: "middle", baseline: "alphabetic" });
        ctx.fillText(label.text, label.x, MARGIN_TOP - 4);
      });
    }
    ctx.textAlign = "right";
    ctx.textBaseline = "middle";
    for (let row = 0; row < layout.rows; row++) {
      const label = { text: layerMark(state, row + 1), y: cellOrigin(layout, row, 0).y + layout.cell / 2 };
      labels.push({ ...label, x: MARGIN_LEFT - 6, anchor: "end", baseline: "middle" });
      ctx.fillText(label.text, MARGIN_LEFT - 6, label.y);
    }
    if (env) {
      // One pixel per entry, blown up without blur; a matrix larger than its cell in device pixels
      // is shrunk by taking each block's strongest entry (slicePixels), then drawn pixel for pixel.
      const size = Math.round(layout.cell * dpr);
      const side = Math.min(env.rows, size);
      scratch.width = scratch.height = side;
      const sctx = scratch.getContext("2d");
      if (!sctx) return { cells, labels };
      const image = sctx.createImageData(side, side);
      ctx.imageSmoothingEnabled = false;
      for (let row = 0; row < layout.rows; row++) {
        for (let column = 0; column < heads.length; column++) {
          const { x, y } = cellOrigin(layout, row, column);
          const ready = frame.ready[row];
          const name = `${capitalised(layerName(state, row + 1))}, ${headLabel({ ...state, head: heads[column] })}`;
          cells.push({ x, y, size: layout.cell, name, ready });
          if (!ready) {
            ctx.strokeStyle = ink;
            ctx.strokeRect(x + 0.5, y + 0.5, layout.cell - 1, layout.cell - 1);
            continue;
          }
          image.data.set(slicePixels(env, cellSlice(frame, row, column), table, size, frame.signed).pixels);
          sctx.putImageData(image, 0, 0);
          ctx.drawImage(scratch, x, y, layout.cell, layout.cell);
        }
      }
    }
    return { cells, labels };
  };

  /** @param {import("./heads_grid.js").HeadsFrame} frame */
  const paint = (frame) => {
    shown = frame;
    const { state, layout, env } = frame;
    const dpr = win.devicePixelRatio || 1;
    canvas.style.width = `${layout.width}px`;
    canvas.style.height = `${layout.height}px`;
    const { signed } = frame;
    const name = signed ? "diverging" : "heat";
    probe(canvas, {
      rows: String(layout.rows),
      columns: String(layout.columns),
      cells: "0",
      cell: String(layout.cell),
    });
    canvas.setAttribute(
      "aria-label",
      say(
        state.method.per_head
          ? "{method}: {rows} layers × {columns} heat maps, one per head"
          : "{method}: {rows} layers × {columns} heat maps, one per layer",
        { method: state.method.label, rows: layout.rows, columns: layout.columns },
      ),
    );
    const { cells } = drawGrid(frame, canvas, dpr, win.getComputedStyle(root).color || "#888");
    probe(canvas, { cells: String(cells.filter((cell) => cell.ready).length) });
    const stops = colormap(name);
    bar.style.background = `linear-gradient(to right, ${stops[0]}, ${stops[128]}, ${stops[255]})`;
    const missing = frame.ready.filter((r) => !r).length;
    const pixels = Math.round(layout.cell * dpr);
    keyText.textContent =
      say(signed ? "negative ← 0 → positive" : "0 → largest") +
      say(
        ": each cell is scaled to its own largest value, so a cell shows its pattern, not its strength against the others.",
      ) +
      say(" Rows of a cell: receiving tokens; columns: sending tokens.") +
      (env && env.rows > pixels
        ? say(" {n} tokens in {pixels} pixels: each pixel shows the strongest entry of its block.", {
            n: env.rows,
            pixels,
          })
        : "") +
      (env?.indices
        ? say(" Only the {k} strongest entries of each row are stored at this length; the rest show as 0.", {
            k: env.k,
          })
        : "") +
      (missing
        ? say(" Empty boxes: {n} layers not computed yet (click one to open it and compute it there).", { n: missing })
        : "");
    showHover(null);
  };

  /**
   * The grid last painted, drawn afresh at `scale` for a download, with what its key says (heads_export.js).
   * @param {number} scale @param {string} ink  the colour of its text
   * @returns {import("./heads_export.js").HeadsPicture | null}
   */
  const picture = (scale, ink) => {
    if (!shown) return null;
    const grid = /** @type {HTMLCanvasElement} */ (doc.createElement("canvas"));
    const { cells, labels } = drawGrid(shown, grid, scale, ink);
    const { signed } = shown;
    return {
      grid,
      scale,
      cells,
      labels,
      width: shown.layout.width,
      height: shown.layout.height,
      table: colormap(signed ? "diverging" : "heat"),
      ends: signed ? [say("negative"), say("positive")] : ["0", say("largest")],
      title: say("{method}: the colour of each cell", { method: shown.state.method.label }),
      key: keyText.textContent ?? "",
    };
  };

  return { root, canvas, paint, picture, cellUnder, showHover };
}

/** @param {string} text */
function capitalised(text) {
  return text.charAt(0).toUpperCase() + text.slice(1);
}
