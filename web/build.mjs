// Bundles the page `mesh2dsp view` copies into its folder: app.js (the page, three.js and
// faustwasm in one classic script), faust.js (Faust's WebAssembly compiler with its binary and
// its libraries inlined as base64 of gzip, so a page opened from file:// needs no fetch) and
// index.html.
// Usage: node web/build.mjs OUTDIR   (run by the CMake build when web/node_modules exists)
import { build } from "esbuild";
import { gzipSync } from "node:zlib";
import { mkdirSync, readFileSync, writeFileSync, copyFileSync, renameSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const here = dirname(fileURLToPath(import.meta.url));
const out = process.argv[2];
if (!out) { console.error("usage: node build.mjs OUTDIR"); process.exit(2); }
mkdirSync(out, { recursive: true });

// Each output written to a temporary and renamed: a failed build leaves no half file.
const put = (name, text) => { writeFileSync(join(out, name + ".tmp"), text); renameSync(join(out, name + ".tmp"), join(out, name)); };

const bundle = await build({
  entryPoints: [join(here, "src", "main.js")],
  // Identifiers kept: faustwasm builds its AudioWorklet from its own functions' source text and
  // names, which renaming would break; whitespace and syntax are minified.
  bundle: true, format: "iife", minifyWhitespace: true, minifySyntax: true, minifyIdentifiers: false, write: false, target: "es2020", platform: "browser",
  // faustwasm's Node branch (never taken in a browser) imports these.
  external: ["fs", "url", "path", "module", "process", "node:fs", "node:url", "node:path"],
  logLevel: "warning",
});
put("app.js", bundle.outputFiles[0].text);

const faust = join(here, "node_modules", "@grame", "faustwasm", "libfaust-wasm");
// gzip, then base64: the page inflates them with the browser's own DecompressionStream.
const b64 = (file) => gzipSync(readFileSync(join(faust, file)), { level: 9 }).toString("base64");
put("faust.js", readFileSync(join(faust, "libfaust-wasm.js"), "utf8") +
  `\nwindow.M2D_FAUST = {wasm: "${b64("libfaust-wasm.wasm")}", data: "${b64("libfaust-wasm.data")}"};\n`);
copyFileSync(join(here, "src", "index.html"), join(out, "index.html.tmp"));
renameSync(join(out, "index.html.tmp"), join(out, "index.html"));
