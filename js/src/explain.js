// The "About this method" panel: the selected method's plain-language explanation (its meta's
// `explain`) and when to trust it (`trust`), shown under the caption when the user asks, so it never
// covers the plot; and the method's one-line hint under the caption, always. The text reaches the page
// through textContent only.

import { tr } from "./i18n.js";
import { element } from "./overlay.js";

/**
 * @param {Document} doc
 * @param {string} [lang]  the language of the words (i18n.js)
 * @returns {{ button: HTMLButtonElement, panel: HTMLElement, hint: HTMLElement,
 *   update: (method: import("./state.js").MethodMeta) => void }}
 */
export function createExplain(doc, lang = "en") {
  const button = /** @type {HTMLButtonElement} */ (
    element(doc, "button", "attnw-save attnw-explain-toggle", tr(lang, "? About this method"))
  );
  button.type = "button";
  button.title = tr(lang, "Show or hide what the selected method draws, in plain words");
  button.setAttribute("aria-expanded", "false");
  const panel = element(doc, "div", "attnw-explain");
  panel.hidden = true;
  const heading = element(doc, "div", "attnw-explain-title");
  const body = element(doc, "div", "attnw-explain-text");
  const trustHeading = element(doc, "div", "attnw-explain-title", tr(lang, "When to trust it"));
  const trust = element(doc, "div", "attnw-explain-text attnw-explain-trust");
  panel.append(heading, body, trustHeading, trust);
  const hint = element(doc, "div", "attnw-hint");
  const panelId = `attnw-explain-${Math.random().toString(36).slice(2)}`;
  panel.id = panelId;
  button.setAttribute("aria-controls", panelId);
  button.addEventListener("click", () => {
    panel.hidden = !panel.hidden;
    button.setAttribute("aria-expanded", String(!panel.hidden));
  });
  /** @param {import("./state.js").MethodMeta} method */
  const update = (method) => {
    heading.textContent = method.label ? tr(lang, "About “{method}”", { method: method.label }) : "";
    body.textContent = explanationOf(method, lang);
    trust.textContent = method.trust ?? "";
    trustHeading.hidden = trust.hidden = !method.trust;
    hint.textContent = method.hint ?? "";
    hint.hidden = !method.hint;
  };
  return { button, panel, hint, update };
}

/**
 * The text the panel shows for a method: its explanation, else its one-line description.
 * @param {import("./state.js").MethodMeta} method @param {string} [lang]
 * @returns {string}
 */
export function explanationOf(method, lang = "en") {
  return method.explain || method.description || tr(lang, "No explanation is available for this method.");
}
