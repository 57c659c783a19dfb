// Decoder of the binary envelopes written by attn_widget/payload.py (the format is
// documented there). Only this module knows the byte layout: the "rows" layout (only the
// rows that are not all zero) arrives as dense, and an envelope of some slices only (a long
// input's heads of one layer) arrives with the others zero, so the rest of the view knows two
// layouts (state.js says which slices hold data).

const MAGIC = "AWP1";
const FULL_SCALE = { u16: 65535, i16: 32767 };

/**
 * @typedef {object} Envelope
 * @property {"dense" | "topk"} layout
 * @property {number[]} shape    leading dims are slices, then rows, then cols
 * @property {number} slices     product of the leading dims
 * @property {number} rows
 * @property {number} cols
 * @property {number} k          entries stored per row (cols when dense)
 * @property {boolean} signed
 * @property {Float32Array} scale           one per row of every slice
 * @property {Uint16Array | Int16Array} values
 * @property {Uint16Array | null} indices   top-k column indices, strongest first
 * @property {Uint16Array | null} coverage  share of the row's mass kept, /65535
 */

/**
 * Bytes as received from a widget trait.
 * @param {DataView | ArrayBuffer | ArrayBufferView} data
 * @returns {Uint8Array}
 */
function asBytes(data) {
  if (data instanceof ArrayBuffer) return new Uint8Array(data);
  if (ArrayBuffer.isView(data)) return new Uint8Array(data.buffer, data.byteOffset, data.byteLength);
  throw new TypeError("expected a DataView, ArrayBuffer or typed array");
}

const ARRAY_TYPES = { f32: Float32Array, u16: Uint16Array, i16: Int16Array, u32: Uint32Array };

/**
 * @param {DataView | ArrayBuffer | ArrayBufferView} data
 * @returns {Envelope}
 */
export function decodeEnvelope(data) {
  let bytes = asBytes(data);
  // Typed views need aligned offsets; a view into a shared message buffer may not be.
  if (bytes.byteOffset % 4 !== 0) bytes = bytes.slice();
  if (bytes.byteLength < 8) throw new Error("attn_widget payload is truncated");
  const magic = String.fromCharCode(bytes[0], bytes[1], bytes[2], bytes[3]);
  if (magic !== MAGIC) throw new Error(`not an attn_widget payload (magic ${JSON.stringify(magic)})`);
  const headerLength = new DataView(bytes.buffer, bytes.byteOffset, 8).getUint32(4, true);
  const header = JSON.parse(new TextDecoder().decode(bytes.subarray(8, 8 + headerLength)));
  if (header.version !== 1) throw new Error(`unsupported payload version ${header.version}`);
  const dataStart = bytes.byteOffset + 8 + headerLength;

  /** @type {Record<string, any>} */
  const sections = {};
  for (const [name, spec] of Object.entries(header.sections)) {
    const Type = ARRAY_TYPES[/** @type {keyof typeof ARRAY_TYPES} */ (spec.dtype)];
    if (!Type) throw new Error(`unknown dtype ${spec.dtype}`);
    sections[name] = new Type(/** @type {ArrayBuffer} */ (bytes.buffer), dataStart + spec.offset, spec.length);
  }
  /** @type {number[]} */
  const shape = header.shape;
  const rows = shape[shape.length - 2];
  const cols = shape[shape.length - 1];
  const slices = shape.slice(0, -2).reduce((a, b) => a * b, 1);
  const signed = header.sections.values.dtype === "i16";
  if (header.layout === "rows") Object.assign(sections, denseRows(sections, slices * rows, cols, signed));
  else if (sections.slices) Object.assign(sections, allSlices(sections, slices, rows, header.k));
  return {
    layout: header.layout === "rows" ? "dense" : header.layout,
    shape,
    slices,
    rows,
    cols,
    k: header.k,
    signed,
    scale: sections.scale,
    values: sections.values,
    indices: sections.indices ?? null,
    coverage: sections.coverage ?? null,
  };
}

/**
 * The kept rows of a "rows" envelope spread into a dense one's scale and values (the rest zero).
 * @param {Record<string, any>} sections  rows (u32 indices), scale and values of the kept rows
 * @param {number} total  rows of every slice
 * @param {number} cols
 * @param {boolean} signed
 */
function denseRows(sections, total, cols, signed) {
  const scale = new Float32Array(total);
  const values = signed ? new Int16Array(total * cols) : new Uint16Array(total * cols);
  sections.rows.forEach((/** @type {number} */ row, /** @type {number} */ t) => {
    scale[row] = sections.scale[t];
    values.set(sections.values.subarray(t * cols, (t + 1) * cols), row * cols);
  });
  return { scale, values };
}

/**
 * The sections of an envelope holding some slices only (``slices``: their indices, in order) spread over
 * every slice, the others zero.
 * @param {Record<string, any>} sections
 * @param {number} slices  slices of the whole stack
 * @param {number} rows  per slice
 * @param {number} k  entries per row
 */
function allSlices(sections, slices, rows, k) {
  /** @type {Record<string, any>} */
  const out = {};
  for (const [name, per] of [
    ["scale", 1],
    ["coverage", 1],
    ["values", k],
    ["indices", k],
  ]) {
    const part = sections[name];
    if (!part) continue;
    const perSlice = rows * /** @type {number} */ (per);
    const whole = new part.constructor(slices * perSlice);
    sections.slices.forEach((/** @type {number} */ slice, /** @type {number} */ t) => {
      whole.set(part.subarray(t * perSlice, (t + 1) * perSlice), slice * perSlice);
    });
    out[name] = whole;
  }
  return out;
}

/**
 * The stored entries of one row: column indices and decoded values.
 * Dense rows list every column in order; top-k rows list the strongest first.
 * @param {Envelope} env
 * @param {number} slice
 * @param {number} row
 * @returns {{ cols: ArrayLike<number>, values: Float64Array }}
 */
export function rowEntries(env, slice, row) {
  const r = slice * env.rows + row;
  const scale = env.scale[r] / FULL_SCALE[env.signed ? "i16" : "u16"];
  const start = r * env.k;
  const codes = env.values.subarray(start, start + env.k);
  const values = new Float64Array(env.k);
  for (let i = 0; i < env.k; i++) values[i] = codes[i] * scale;
  const cols = env.indices ? env.indices.subarray(start, start + env.k) : identity(env.k);
  return { cols, values };
}

/** @type {Map<number, Uint16Array>} */
const identities = new Map();
/** @param {number} n */
function identity(n) {
  let out = identities.get(n);
  if (!out) {
    out = new Uint16Array(n);
    for (let i = 0; i < n; i++) out[i] = i;
    identities.set(n, out);
  }
  return out;
}

/**
 * Share of the row's absolute mass carried by the stored entries (1 when dense).
 * @param {Envelope} env
 * @param {number} slice
 * @param {number} row
 */
export function rowCoverage(env, slice, row) {
  if (!env.coverage) return 1;
  return env.coverage[slice * env.rows + row] / 65535;
}

/**
 * Largest absolute value in a slice (the colour-scale maximum).
 * @param {Envelope} env
 * @param {number} slice
 */
export function sliceMax(env, slice) {
  let max = 0;
  for (let r = slice * env.rows; r < (slice + 1) * env.rows; r++) max = Math.max(max, env.scale[r]);
  return max;
}
