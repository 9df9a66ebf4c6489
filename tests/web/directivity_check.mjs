// Drives a page of `mesh2dsp view` for a model with directivity (--radiation bem) in Debian's
// headless Chromium, offline, and writes what it saw for tests/web/view_test.cpp:
//   OUT/directivity.json  console errors, the balloon's canvas pixels shown and hidden, and the
//                         selected mode's |F| at every balloon direction as the page computed it
// Usage: node directivity_check.mjs URL OUT MODE
import { createRequire } from "node:module";
import { writeFileSync, mkdirSync } from "node:fs";
import { join, dirname } from "node:path";
import { fileURLToPath } from "node:url";
import { canvasPixels } from "./canvas_pixels.mjs";

const here = dirname(fileURLToPath(import.meta.url));
const require = createRequire(join(here, "..", "..", "web", "package.json"));
const { chromium } = require("playwright-core");

const [url, out, modeArg] = process.argv.slice(2);
const mode = Number(modeArg ?? 0);
mkdirSync(out, { recursive: true });
const result = { errors: [] };
const browser = await chromium.launch({
  executablePath: process.env.CHROMIUM ?? "/usr/bin/chromium",
  args: ["--no-sandbox", "--use-angle=swiftshader", "--enable-unsafe-swiftshader",
         "--disable-background-networking", "--disable-component-update"],
});
try {
  const context = await browser.newContext({ offline: true, viewport: { width: 1280, height: 800 } });
  const page = await context.newPage();
  page.on("console", (m) => { if (m.type() === "error") result.errors.push(m.text()); });
  page.on("pageerror", (e) => result.errors.push(String(e)));
  await page.goto(url, { waitUntil: "load" });
  await page.waitForFunction(() => window.m2d !== undefined);
  // Pixels of the WebGL canvas other than the background, with the object at rest.
  const pixels = async () => {
    await page.evaluate(() => window.m2d.render());
    return (await canvasPixels(page)).object;
  };
  await page.evaluate(() => { window.m2d.setAnimate(false); window.m2d.setModeFrame(0, 0); });
  result.toggleShown = await page.evaluate(() => getComputedStyle(document.getElementById("directivityToggle")).display !== "none");
  await page.evaluate(() => window.m2d.showDirectivity(false));
  result.pixelsHidden = await pixels();
  await page.evaluate(() => window.m2d.showDirectivity(true));
  result.balloon = await page.evaluate((n) => window.m2d.setDirectivity(n), mode);
  result.pixelsShown = await pixels();
  await page.locator("#canvas").screenshot({ path: join(out, "directivity.png") });
} catch (e) {
  result.errors.push("driver: " + (e && e.stack ? e.stack : e));
} finally {
  await browser.close();
  writeFileSync(join(out, "directivity.json"), JSON.stringify(result));
}
