// Bundle src/ into the Python package's static folder. The bundle is committed so that
// users need no Node.js; `node build.mjs --check` (run by `make test`) fails when the
// committed files differ from what the sources build to.
import { readFile, writeFile } from "node:fs/promises";
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

let stale = [];
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
