// What the view records for tests and benchmarks: the edge canvas's geometry, when a paint ended and how long
// it took, how the edges were drawn, what each canvas shows. Written as data- attributes only on a page that
// asks for them before the widget renders (`window.attnwProbes = true`: tests/browser's pages, the node tests'
// jsdom, benchmarks/frame_time.py), so a user's page does no such DOM writes on every paint.

/**
 * Set `values` as `node`'s data- attributes (camelCase keys) when the page asked for probes.
 * @param {HTMLElement} node @param {Record<string, string>} values
 */
export function probe(node, values) {
  const win = /** @type {(Window & { attnwProbes?: boolean }) | null} */ (node.ownerDocument.defaultView);
  if (win?.attnwProbes === true) Object.assign(node.dataset, values);
}
