// Bundle src/ into the Python package's static folder. The bundle is committed so that
// users need no Node.js; `node build.mjs --check` (run by `make test`) fails when the
// committed files differ from what the sources build to.
import { mkdir, readdir, readFile, writeFile } from "node:fs/promises";
import * as esbuild from "esbuild";

const staticDir = new URL("../attn_widget/static/", import.meta.url);
const check = process.argv.includes("--check");

const result = await esbuild.build({
  entryPoints: [new URL("src/index.js", import.meta.url).pathname],
  bundle: true,
  format: "esm",
  target: "es2020",
  legalComments: "none",
  write: false,
  outfile: new URL("widget.js", staticDir).pathname,
  logLevel: "warning",
});

const outputs = [
  ["widget.js", result.outputFiles[0].text],
  ["widget.css", await readFile(new URL("src/widget.css", import.meta.url), "utf8")],
];
// The language tables, also for the words Python shows (attn_widget/i18n.py: the CorpusWidget).
const locale = new URL("src/locale/", import.meta.url);
for (const name of (await readdir(locale)).filter((file) => file.endsWith(".json")).sort()) {
  outputs.push([`locale/${name}`, await readFile(new URL(name, locale), "utf8")]);
}
if (!check) await mkdir(new URL("locale/", staticDir), { recursive: true });

const stale = [];
for (const [name, text] of outputs) {
  const target = new URL(name, staticDir);
  if (check) {
    const current = await readFile(target, "utf8").catch(() => "");
    if (current !== text) stale.push(name);
  } else {
    await writeFile(target, text);
  }
}
if (stale.length) {
  console.error(`attn_widget/static/{${stale.join(",")}} is stale: run \`make bundle\` and commit the result.`);
  process.exit(1);
}
