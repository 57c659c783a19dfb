// The panel shown instead of the graph when the selected method's layer is computed
// on request (attention flow for long inputs): a button to ask the kernel for it, and
// the running job's progress with a cancel button.

import { speaker } from "./i18n.js";
import { shownWindow } from "./navigate.js";
import { element } from "./overlay.js";
import { hasPinnedRow, isPinnedRowComing, pinnedNode } from "./state.js";

/**
 * @typedef {object} Job  the widget's `job` trait
 * @property {string} [method]
 * @property {number[]} [layers]
 * @property {number} [done]
 * @property {number} [total]
 * @property {string | null} [error]
 */

/**
 * @param {Document} doc
 * @param {import("./state.js").WidgetModel & { send: (content: object) => void }} model
 * @param {string} lang  the language of the words (i18n.js)
 */
export function createPending(doc, model, lang) {
  const say = speaker(lang);
  const root = element(doc, "div", "attnw-pending");
  root.setAttribute("role", "status");
  const message = element(doc, "p", "attnw-pending-message");
  const buttons = element(doc, "div", "attnw-pending-buttons");
  const computeLayer = /** @type {HTMLButtonElement} */ (element(doc, "button", "attnw-compute"));
  const computeAll = /** @type {HTMLButtonElement} */ (
    element(doc, "button", "attnw-compute-all", say("Compute all layers"))
  );
  const cancel = /** @type {HTMLButtonElement} */ (element(doc, "button", "attnw-cancel", say("Cancel")));
  const bar = /** @type {HTMLProgressElement} */ (element(doc, "progress", "attnw-progress"));
  const error = element(doc, "p", "attnw-pending-error");
  buttons.append(computeLayer, computeAll, bar, cancel);
  root.append(message, buttons, error);
  root.hidden = true;

  let method = "";
  let layer = 1;
  let nLayers = 1;
  const onLayer = () => model.send({ type: "compute", method, layers: [layer] });
  const onAll = () => model.send({ type: "compute", method, layers: Array.from({ length: nLayers }, (_, i) => i + 1) });
  const onCancel = () => model.send({ type: "cancel" });
  computeLayer.addEventListener("click", onLayer);
  computeAll.addEventListener("click", onAll);
  cancel.addEventListener("click", onCancel);

  return {
    root,
    /**
     * @param {import("./state.js").ViewState} state
     * @param {boolean} available  whether the selected layer's data is present
     * @param {Job} job
     */
    update(state, available, job) {
      method = state.method.id;
      layer = state.layer;
      nLayers = state.nLayers;
      const running = job.method !== undefined && !job.error;
      const mine = job.method === method;
      // The graph shows the pinned token's row only (its own, computed for the pin): the panel
      // still offers the whole layer.
      const partial = hasPinnedRow(state) && !state.offline && !(running && mine);
      root.hidden = available && !(running && mine) && !partial;
      if (root.hidden) return;
      // Over a drawn graph the panel sits at its foot, off the edges in its middle; at its head
      // when the pinned token is in the lower half of the rows (its edges gather there).
      const shown = shownWindow(state.tokens.length, state.window);
      const low = (pinnedNode(state)?.index ?? -1) >= shown.start + shown.size / 2;
      root.classList.toggle("attnw-pending-docked", available);
      root.classList.toggle("attnw-pending-top", available && low);
      const words = { method: state.method.label, layer, id: method, cost: state.method.on_request ?? "" };
      message.textContent = say(
        partial
          ? "{method}: only the pinned token's row is computed for layer {layer}."
          : available
            ? "{method}: computing more layers…"
            : running && mine && job.layers?.includes(layer)
              ? "{method}: computing…"
              : isPinnedRowComing(state)
                ? "{method}: computing the pinned token's row for layer {layer}…"
                : state.offline && (state.ready[method] ?? []).includes(layer)
                  ? "{method}: this head of layer {layer} is not in this file (a long input's file holds the head shown when it was exported)."
                  : state.offline
                    ? '{method} for layer {layer} was not computed before this view was exported; in the notebook, call w.compute("{id}") before exporting.'
                    : state.method.on_request
                      ? "{method} for layer {layer} is computed on request: {cost}"
                      : "{method} for layer {layer} is computed on request.",
        words,
      );
      computeLayer.textContent = say("Compute layer {layer}", { layer });
      computeLayer.hidden = computeAll.hidden = running || (available && !partial) || state.offline;
      bar.hidden = cancel.hidden = !running;
      if (running && job.total) {
        bar.max = job.total;
        bar.value = job.done ?? 0;
        bar.textContent = `${Math.round(((job.done ?? 0) / job.total) * 100)}%`;
      }
      error.textContent =
        job.error && mine
          ? job.error === "cancelled"
            ? say("Cancelled.")
            : say("Failed: {error}", { error: job.error })
          : "";
    },
    destroy() {
      computeLayer.removeEventListener("click", onLayer);
      computeAll.removeEventListener("click", onAll);
      cancel.removeEventListener("click", onCancel);
    },
  };
}
