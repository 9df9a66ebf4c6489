// Compiles Faust programs with Faust's WebAssembly compiler (@grame/faustwasm, the compiler the
// page uses) in Node, and prints one JSON line per file: {file, ok, error, ui}.
// Usage: node faustwasm_compile.mjs FILE.dsp...
import { createRequire } from "node:module";
import { readFileSync } from "node:fs";
import { basename, dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const here = dirname(fileURLToPath(import.meta.url));
const web = join(here, "..", "..", "web");
const require = createRequire(join(web, "package.json"));
const { instantiateFaustModuleFromFile, LibFaust, FaustCompiler, FaustMonoDspGenerator } =
  await import(join(web, "node_modules", "@grame", "faustwasm", "dist", "esm", "index.js"));

const faustModule = await instantiateFaustModuleFromFile(
  join(web, "node_modules", "@grame", "faustwasm", "libfaust-wasm", "libfaust-wasm.js"));
const compiler = new FaustCompiler(new LibFaust(faustModule));
for (const file of process.argv.slice(2)) {
  const generator = new FaustMonoDspGenerator();
  let ok = false, error = "";
  try {
    ok = Boolean(await generator.compile(compiler, basename(file, ".dsp"), readFileSync(file, "utf8"), "-ftz 2"));
    if (!ok) error = compiler.getErrorMessage();
  } catch (e) {
    error = String(e && e.message ? e.message : e);
  }
  console.log(JSON.stringify({ file, ok, error, inputs: ok ? generator.getMeta().inputs : null,
                               outputs: ok ? generator.getMeta().outputs : null }));
}
