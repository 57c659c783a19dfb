// The widget's words in the language of the `lang` trait. English text is the key (as gettext
// does): every label is written once, in English, where it is used, and a table per language
// gives its translation; a phrase missing from a table shows in English rather than as a key.
// tests/test_locale.py keeps the tables complete and free of stale entries.

import zh from "./locale/zh.json" with { type: "json" };

/** @type {Record<string, Record<string, string>>} */
const TABLES = { zh };

/** The languages the `lang` trait accepts, with their names in their own words. */
export const LANGUAGES = /** @type {Array<[string, string]>} */ ([
  ["en", "English"],
  ["zh", "中文"],
]);

/**
 * `text` in `lang`, with `{name}` placeholders filled from `params` (after translation, so a
 * translation may move them).
 * @param {string} lang @param {string} text @param {Record<string, string | number>} [params]
 * @returns {string}
 */
export function tr(lang, text, params) {
  const translated = TABLES[lang]?.[text] ?? text;
  return params
    ? translated.replace(/\{(\w+)\}/g, (whole, name) => (name in params ? String(params[name]) : whole))
    : translated;
}

/**
 * `tr` bound to one language: what each module calls `say`.
 * @param {string} lang
 * @returns {(text: string, params?: Record<string, string | number>) => string}
 */
export function speaker(lang) {
  return (text, params) => tr(lang, text, params);
}

/**
 * A name made in Python ("decoder 2", "Encoder output"): translated whole, or as its words
 * before a trailing number ("decoder {n}").
 * @param {string} lang @param {string} name
 */
export function trName(lang, name) {
  const numbered = /^(.*\S) (\d+)$/.exec(name);
  if (TABLES[lang]?.[name] || !numbered) return tr(lang, name);
  return tr(lang, `${numbered[1]} {n}`, { n: numbered[2] });
}
