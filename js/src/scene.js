// A scene is what the canvas shows, as data: edge bundles between pairs of columns, dots and
// column numbers. The screen, the PNG and the SVG export all draw the same scene, so a
// downloaded picture is the view the user sees (pinned paths included).

import { colormap, edgeTable, isSigned } from "./colormap.js";
import { CONTEXT_OPACITY, edgeStrokes, wideFrom } from "./draw.js";
import { edgesOfNode } from "./edges.js";
import { HEADER_HEIGHT, LABEL_GAP, rowCenter } from "./layout.js";
import { tracePaths, transition } from "./model_view.js";
import { layerMark } from "./state.js";

/**
 * @typedef {object} Bundle  the edges between two columns
 * @property {import("./layout.js").Layout} layout  leftX and rightX are the two columns
 * @property {import("./edges.js").EdgeList} edges
 * @property {Set<number> | null} highlight  edges drawn strong, the others dimmed
 * @property {number} wideFrom  colour buckets from this one up are drawn wider than a hairline
 * @property {import("./edges.js").ColourScale | null} [focusScale]  the highlighted edges' colour
 *   scale (their own range); null: edges.max, as the others
 */

/**
 * @typedef {object} ScaleInfo  what the legend says of the colour scale in use
 * @property {"focus" | "all" | "layers" | "paths"} of  the focused tokens' edges, every edge drawn, each layer's,
 *   or each layer's edges of the paths traced from a focused node (whole-model view; high: the largest layer's)
 * @property {number} low   magnitude of the low end (signed: the scale runs from -low), else 0
 * @property {number} high  the high end
 * @property {number} selfOnly  a self-edge left out of the scale (edges.js filterEdges), or 0
 */

/** @typedef {{ x: number, y: number, radius: number, color: string, alpha: number }} Dot */

/**
 * @typedef {object} Scene
 * @property {import("./layout.js").Layout} layout  the whole picture; labels sit beside leftX and rightX
 * @property {Bundle[]} bundles
 * @property {Dot[]} dots
 * @property {{ text: string, x: number, y: number }[]} marks  column numbers
 * @property {number[]} rules   y of a faint line across the plot where one token list ends and the next begins
 * @property {string[]} table   colour table of the edges
 * @property {boolean} signed
 * @property {ScaleInfo} scale  the colour scale the legend states
 * @property {string} ink       colour of text and plain dots
 */

/** How many edges of a picture may be drawn wide: width singles out the strongest few. Each wide
 * edge costs about ten hairlines to rasterise in software, so a single-layer picture of more than
 * DENSE edges (a long input) gets only WIDE_EDGES_DENSE: about 4 ms less at 128 tokens. */
const WIDE_EDGES = 32;
const WIDE_EDGES_DENSE = 8;
const DENSE = 300;

/** Colour of text and plain dots. @param {boolean} dark */
const inkOf = (dark) => (dark ? "#e6e6e6" : "#333333");

/**
 * @param {import("./frames.js").LayerFrame} frame
 * @param {boolean} dark  the host's theme is dark
 * @returns {Scene}
 */
export function layerScene(frame, dark) {
  const { layout, edges, pinned, focus, degrees } = frame;
  const signed = frame.signed ?? isSigned(frame.state.method, frame.env);
  const ink = inkOf(dark);
  const highlight = focus
    ? new Set([...(pinned ? edgesOfNode(edges, pinned) : []), ...edgesOfNode(edges, focus)])
    : null;
  /** @type {Dot[]} */
  const dots = [];
  if (degrees) {
    // Teaching overlay: dot area proportional to the degree.
    const x = degrees.kind === "in" ? layout.rightX : layout.leftX;
    const largest = Math.max(2, Math.min(LABEL_GAP, layout.rowHeight * 0.45)); // clear of the labels
    for (let i = layout.first; i <= layout.last; i++) {
      const radius = degrees.max > 0 ? largest * Math.sqrt(Math.abs(degrees.values[i]) / degrees.max) : 0;
      dots.push({ x, y: rowCenter(layout, i), radius, color: ink, alpha: 0.55 });
    }
  }
  // A focused token's edges are coloured on their own range: its order shows however small they are.
  const focusScale = highlight && highlight.size > 0 ? (frame.focusScale ?? null) : null;
  const wide = wideFrom(edges, edges.count > DENSE ? WIDE_EDGES_DENSE : WIDE_EDGES);
  const bundles = [{ layout, edges, highlight, wideFrom: wide, focusScale }];
  /** @type {ScaleInfo} */
  const scale = focusScale
    ? { of: "focus", low: signed ? focusScale.low : 0, high: focusScale.high, selfOnly: 0 }
    : { of: "all", low: signed ? edges.max : 0, high: edges.max, selfOnly: edges.selfOnly ?? 0 };
  return {
    layout,
    bundles,
    dots,
    marks: [],
    rules: segmentRules(layout, frame.state.segments),
    table: edgeTable(signed, dark),
    signed,
    scale,
    ink,
  };
}

/**
 * @param {import("./frames.js").ModelFrame} frame
 * @param {boolean} dark
 * @returns {Scene}
 */
export function modelScene(frame, dark) {
  const { layout, perLayer, focus, shade } = frame;
  const ink = inkOf(dark);
  const traced = focus ? tracePaths(perLayer, focus) : null;
  // Each layer's traced edges are coloured on their own range, so that their order shows (the others are
  // grey context), as a focused token's edges in the one-layer view: the focused node's own edges are not
  // paled by a strong edge elsewhere in its layer (a decoder's first self-edge, a step's residual).
  const scales = traced ? perLayer.map((edges, l) => tracedScale(edges, traced[l])) : null;
  const wide = Math.floor(WIDE_EDGES / Math.max(1, perLayer.length));
  const bundles = perLayer.map((edges, l) => ({
    layout: transition(layout, l + 1),
    edges,
    highlight: traced ? traced[l] : null,
    wideFrom: wideFrom(edges, wide),
    focusScale: scales?.[l] ?? null,
  }));
  const traceScales = (scales ?? []).filter((s) => s !== null);
  const nodeTable = colormap(dark ? "dark" : "light");
  const radius = Math.max(1, Math.min(LABEL_GAP / 2, layout.rowHeight * 0.25)); // shaded dots double it
  /** @type {Dot[]} */
  const dots = [];
  layout.columns.forEach((x, c) => {
    for (let i = layout.first; i <= layout.last; i++) {
      const y = rowCenter(layout, i);
      if (!shade) {
        dots.push({ x, y, radius, color: ink, alpha: 0.6 });
        continue;
      }
      const value = shade[c][i];
      dots.push({
        x,
        y,
        radius: radius * (1 + value),
        color: nodeTable[Math.round(value * (nodeTable.length - 1))],
        alpha: 0.25 + 0.75 * value,
      });
    }
  });
  const marks = layout.columns
    .slice(1, -1)
    .map((x, c) => ({ text: layerMark(frame.state, c + 1), x, y: HEADER_HEIGHT / 2 }));
  const rules = segmentRules(layout, frame.state.segments);
  const signed = frame.signed ?? frame.env.signed;
  const max = Math.max(0, ...perLayer.map((e) => e.max));
  return {
    layout,
    bundles,
    dots,
    marks,
    rules,
    table: edgeTable(signed, dark),
    signed,
    scale: traceScales.length
      ? {
          of: "paths",
          low: signed ? Math.max(...traceScales.map((s) => s.low)) : 0,
          high: Math.max(...traceScales.map((s) => s.high)),
          selfOnly: 0,
        }
      : { of: "layers", low: signed ? max : 0, high: max, selfOnly: 0 },
    ink,
  };
}

/**
 * The colour scale of one layer's traced edges: from 0 to their largest weight (signed: each side to its
 * own end, as edges.js focusScaleOf), or null when none is traced or all are 0. The edge of a token that
 * sees only itself (a decoder's first: weight 1) is left out, as from the layer's own maximum
 * (edges.js filterEdges), unless it is all that is traced.
 * @param {import("./edges.js").EdgeList} edges @param {Set<number>} traced
 * @returns {import("./edges.js").ColourScale | null}
 */
function tracedScale(edges, traced) {
  let low = 0;
  let high = 0;
  let lone = 0;
  for (const e of traced) {
    const w = edges.weight[e];
    if (edges.source[e] === edges.target[e] && inDegrees(edges)[edges.target[e]] === 1)
      lone = Math.max(lone, Math.abs(w));
    else if (w < 0) low = Math.max(low, -w);
    else high = Math.max(high, w);
  }
  if (low === 0 && high === 0) return lone > 0 ? { low: lone, high: lone } : null;
  return { low: low || high, high: high || low };
}

/** @type {WeakMap<import("./edges.js").EdgeList, Uint32Array>} */
const inDegreesOf = new WeakMap();

/**
 * How many drawn edges reach each token, kept per edge list (frames.js keeps the lists): a hover counts
 * each layer once. @param {import("./edges.js").EdgeList} edges
 */
function inDegrees(edges) {
  let degrees = inDegreesOf.get(edges);
  if (!degrees) {
    let rows = 0;
    for (let e = 0; e < edges.count; e++) rows = Math.max(rows, edges.target[e] + 1);
    degrees = new Uint32Array(rows);
    for (let e = 0; e < edges.count; e++) degrees[edges.target[e]]++;
    inDegreesOf.set(edges, degrees);
  }
  return degrees;
}

/**
 * Where one token list ends and the next begins (an encoder-decoder's source and target tokens),
 * for the rows shown.
 * @param {import("./layout.js").Layout} layout @param {{ size: number }[]} segments
 */
function segmentRules(layout, segments) {
  /** @type {number[]} */
  const rules = [];
  let start = 0;
  for (const { size } of segments.slice(0, -1)) {
    start += size;
    if (start > layout.first && start <= layout.last) rules.push(rowCenter(layout, start) - layout.rowHeight / 2);
  }
  return rules;
}

/**
 * The scene's edges without highlight: what the edge canvas holds.
 * @param {CanvasRenderingContext2D} ctx  scaled to CSS pixels
 * @param {Scene} scene
 */
export function drawBase(ctx, scene) {
  drain(baseStrokes(ctx, scene));
}

/**
 * drawBase one stroke at a time (see edgeStrokes): yields each stroke's edge count before it.
 * @param {CanvasRenderingContext2D} ctx  scaled to CSS pixels
 * @param {Scene} scene
 */
export function baseStrokes(ctx, scene) {
  return bundleStrokes(ctx, scene, { highlighted: false, unhighlighted: true });
}

/**
 * What the overlay canvas holds above the (dimmed) base: the highlighted edges drawn strong,
 * dots and column numbers. Token labels are not drawn: the DOM holds them on screen and the
 * exporter writes them into pictures.
 * @param {CanvasRenderingContext2D} ctx  scaled to CSS pixels
 * @param {Scene} scene
 */
export function drawOverlay(ctx, scene) {
  drain(bundleStrokes(ctx, scene, { highlighted: true, unhighlighted: false }));
  drawMarks(ctx, scene);
}

/** Whether the scene highlights something (the base is then dimmed). @param {Scene} scene */
export function isHighlighted(scene) {
  return scene.bundles.some((b) => b.highlight !== null);
}

/**
 * The whole scene on one canvas (downloads), as the screen shows it: under a highlight, the
 * other edges as grey context on a canvas of their own, laid on at CONTEXT_OPACITY (the screen's
 * edge canvas under its opacity and grayscale filter), then the highlighted edges, dots and
 * column numbers.
 * @param {CanvasRenderingContext2D} ctx  scaled to CSS pixels
 * @param {Scene} scene
 */
export function drawScene(ctx, scene) {
  if (!isHighlighted(scene)) drain(bundleStrokes(ctx, scene, { highlighted: false, unhighlighted: true }));
  else {
    const context = contextLayer(ctx);
    if (context) {
      drain(bundleStrokes(context, scene, { highlighted: false, unhighlighted: true, role: "context" }));
      ctx.save();
      ctx.setTransform(1, 0, 0, 1, 0, 0);
      ctx.globalAlpha = CONTEXT_OPACITY;
      ctx.drawImage(context.canvas, 0, 0);
      ctx.restore();
    } else {
      // No second canvas (a test's recording context): each context edge at its own opacity.
      drain(
        bundleStrokes(ctx, scene, {
          highlighted: false,
          unhighlighted: true,
          role: "context",
          contextOpacity: CONTEXT_OPACITY,
        }),
      );
    }
    drain(bundleStrokes(ctx, scene, { highlighted: true, unhighlighted: false }));
  }
  drawMarks(ctx, scene);
}

/**
 * An empty canvas of ctx's size with its transform, or null where none can be made.
 * @param {CanvasRenderingContext2D} ctx @returns {CanvasRenderingContext2D | null}
 */
function contextLayer(ctx) {
  const target = ctx.canvas;
  const doc = target?.ownerDocument;
  if (!doc || typeof ctx.drawImage !== "function") return null;
  const layer = /** @type {HTMLCanvasElement} */ (doc.createElement("canvas"));
  layer.width = target.width;
  layer.height = target.height;
  const layered = layer.getContext("2d");
  layered?.setTransform(ctx.getTransform());
  return layered;
}

/**
 * @param {CanvasRenderingContext2D} ctx @param {Scene} scene
 * @param {{ highlighted: boolean, unhighlighted: boolean, role?: "context", contextOpacity?: number }} which
 *   the edges to draw: the highlighted ones (strong), the others (plain, or context under a
 *   highlight when role is "context")
 * @returns {Generator<number, void, void>}
 */
function* bundleStrokes(ctx, scene, { highlighted, unhighlighted, role, contextOpacity }) {
  for (const { layout, edges, highlight, wideFrom, focusScale } of scene.bundles) {
    // Under a highlight every bundle's other edges are context, even a bundle with none highlighted.
    const shown = highlighted || role === "context" ? (highlight ?? new Set()) : null;
    const options = {
      table: scene.table,
      signed: scene.signed,
      highlight: shown,
      wideFrom,
      focusScale,
      unhighlighted,
      highlighted,
      contextOpacity,
    };
    yield* edgeStrokes(ctx, layout, edges, options);
  }
}

/** Run a drawing generator to its end. @param {Iterator<number>} strokes */
function drain(strokes) {
  while (!strokes.next().done);
}

/** Dashed lines between token lists. @param {CanvasRenderingContext2D} ctx @param {Scene} scene */
function drawRules(ctx, scene) {
  ctx.globalAlpha = 0.5;
  ctx.strokeStyle = scene.ink;
  ctx.lineWidth = 1;
  ctx.setLineDash([4, 4]);
  for (const y of scene.rules) {
    ctx.beginPath();
    ctx.moveTo(0, y);
    ctx.lineTo(scene.layout.width, y);
    ctx.stroke();
  }
  ctx.setLineDash([]);
}

/** Dots and column numbers. @param {CanvasRenderingContext2D} ctx @param {Scene} scene */
function drawMarks(ctx, scene) {
  for (const dot of scene.dots) {
    if (dot.radius <= 0) continue;
    ctx.globalAlpha = dot.alpha;
    ctx.fillStyle = dot.color;
    ctx.beginPath();
    ctx.arc(dot.x, dot.y, dot.radius, 0, 2 * Math.PI);
    ctx.fill();
  }
  if (scene.rules.length) drawRules(ctx, scene);
  ctx.globalAlpha = 1;
  ctx.fillStyle = scene.ink;
  ctx.font = "11px sans-serif";
  ctx.textAlign = "center";
  ctx.textBaseline = "middle";
  for (const mark of scene.marks) ctx.fillText(mark.text, mark.x, mark.y);
  ctx.textAlign = "left";
}
