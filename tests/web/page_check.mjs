// Drives the page `mesh2dsp view` wrote in Debian's headless Chromium (playwright-core, no
// browser download) with the network cut off, and writes what it saw for tests/web/view_test.cpp:
//   OUT/result.json   console errors, blocked requests, load and compile time, canvas pixels,
//                     the mode animation's vertex motion, the clicked contact, page gains
//   OUT/page.f32      the strike at the clicked point rendered in an OfflineAudioContext
//   OUT/screenshot.png
// Usage: node page_check.mjs URL OUT [MODE]     (URL: file:///…/index.html or http://127.0.0.1:…)
import { createRequire } from "node:module";
import { writeFileSync, mkdirSync } from "node:fs";
import { join, dirname } from "node:path";
import { fileURLToPath } from "node:url";
import { canvasPixels } from "./canvas_pixels.mjs";

const here = dirname(fileURLToPath(import.meta.url));
const require = createRequire(join(here, "..", "..", "web", "package.json"));
const { chromium } = require("playwright-core");

const [url, out, modeArg] = process.argv.slice(2);
const mode = Number(modeArg ?? 2);
mkdirSync(out, { recursive: true });
const result = { errors: [], blocked: [] };

const browser = await chromium.launch({
  executablePath: process.env.CHROMIUM ?? "/usr/bin/chromium",
  args: ["--no-sandbox", "--autoplay-policy=no-user-gesture-required", "--use-angle=swiftshader",
         "--enable-unsafe-swiftshader", "--disable-background-networking", "--disable-component-update"],
});
try {
  // Offline for a page from disk; for one from `view --serve` the browser must reach that one
  // local server, and the route below refuses every other address.
  const context = await browser.newContext({ offline: url.startsWith("file:"), viewport: { width: 1280, height: 800 } });
  // Only the page's own folder (file://) or the local --serve server may be reached.
  const local = new URL(url).origin;
  await context.route("**/*", (route) => {
    const u = route.request().url();
    if (u.startsWith("file://") || u.startsWith("blob:") || u.startsWith("data:") || u.startsWith(local + "/"))
      return route.continue();
    result.blocked.push(u);
    return route.abort();
  });
  const page = await context.newPage();
  page.on("console", (m) => { if (m.type() === "error") result.errors.push(m.text()); });
  page.on("pageerror", (e) => result.errors.push(String(e)));

  const t0 = Date.now();
  await page.goto(url, { waitUntil: "load" });
  result.domLoadMs = Date.now() - t0;
  result.compileMs = await page.evaluate(() => window.m2d.ready);
  result.readyMs = Date.now() - t0;

  // The object is drawn: pixels of the WebGL canvas that differ from the background.
  await page.evaluate(() => { window.m2d.setAnimate(false); window.m2d.setModeFrame(0, 0); window.m2d.render(); });
  result.pixels = await canvasPixels(page);
  await page.locator("#canvas").screenshot({ path: join(out, "screenshot.png") });

  // The mode animation: vertex motion between phase 0 and 1 against each mode's displacement.
  result.animation = await page.evaluate((n) => {
    const s = window.m2d.surface;
    const p0 = Float64Array.from(window.m2d.setModeFrame(n, 0));
    const p1 = Float64Array.from(window.m2d.setModeFrame(n, 1));
    const motion = p1.map((x, i) => x - p0[i]);
    const correlation = (m) => {
      let xy = 0, xx = 0, yy = 0;
      for (let i = 0; i < motion.length; ++i) {
        const y = s.displacement[3 * s.V * m + i];
        xy += motion[i] * y; xx += motion[i] * motion[i]; yy += y * y;
      }
      return xy / Math.sqrt(xx * yy || 1);
    };
    let maxMove = 0;
    for (const x of motion) maxMove = Math.max(maxMove, Math.abs(x));
    return { mode: n, maxMove, correlation: Array.from({ length: s.N }, (_, m) => correlation(m)) };
  }, mode);
  await page.evaluate(() => window.m2d.setModeFrame(0, 0));

  // A click on a surface point facing the camera: the centroid of the front-most triangle
  // found under the screen's centre region (projected, then clicked with the mouse).
  const target = await page.evaluate(() => {
    const s = window.m2d.surface;
    const r = document.getElementById("canvas").getBoundingClientRect();
    let best = null;
    for (let t = 0; t < s.T; t += 1) {
      const c = [0, 1, 2].map((k) => (s.positions[3 * s.triangles[3 * t] + k] + s.positions[3 * s.triangles[3 * t + 1] + k] +
        s.positions[3 * s.triangles[3 * t + 2] + k]) / 3);
      const p = window.m2d.project(...c);
      const d = Math.hypot(p.x - (r.left + r.width / 2), p.y - (r.top + r.height / 2));
      if (!best || d < best.d) best = { t, p, d };
    }
    return best;
  });
  await page.mouse.click(target.p.x, target.p.y);
  await page.waitForFunction(() => window.m2d.contact !== null);
  result.contact = await page.evaluate(() => window.m2d.contact);
  result.gains = await page.evaluate((c) => window.m2d.pointGains(c.triangle, c.u, c.v), result.contact);

  result.sampleRate = 48000;
  result.duration = 1;
  result.strikeTime = 0.0625;  // on a sample and exact in binary (see the scrape below)
  // The hardest impact (0.2 ms): its force spectrum is flat far enough for the high modes.
  result.hardness = 1;
  const samples = await page.evaluate(async (c) => {
    const [x] = await window.m2d.renderStrike({ ...c, sampleRate: 48000, duration: 1, strikeTime: 0.0625, set: { hardness: 1 } });
    return Array.from(x);
  }, result.contact);
  writeFileSync(join(out, "page.f32"), Buffer.from(new Float32Array(samples).buffer));
  // The plots of the last strike: pixels other than the plots' background.
  await page.evaluate(() => window.m2d.plotLastStrike());
  result.plots = await page.evaluate(() => ["spectrum", "decay"].map((id) => {
    const c = document.getElementById(id);
    const d = c.getContext("2d").getImageData(0, 0, c.width, c.height).data;
    let drawn = 0;
    for (let i = 0; i < d.length; i += 4)
      if (Math.abs(d[i] - 0x15) + Math.abs(d[i + 1] - 0x17) + Math.abs(d[i + 2] - 0x1b) > 60) ++drawn;
    return { id, drawn, total: d.length / 4 };
  }));

  // Scrape: a shift-drag across the object moves the live program's contact with the scrape
  // model on; letting go lifts it (force 0).
  const from = target.p, to = { x: target.p.x + 60, y: target.p.y + 4 };
  await page.keyboard.down("Shift");
  await page.mouse.move(from.x, from.y);
  await page.mouse.down();
  await page.waitForTimeout(400);  // the live node is made on the first gesture
  await page.mouse.move(to.x, to.y, { steps: 8 });
  result.drag = { during: await page.evaluate(() => ({ params: window.m2d.paramsByLabel(), contact: window.m2d.contact })) };
  await page.mouse.up();
  await page.keyboard.up("Shift");
  result.drag.after = await page.evaluate(() => window.m2d.paramsByLabel());

  // A scrape along a path of surface points, rendered offline (compared with mesh2dsp render).
  result.scrape = { force: 2, speed: 0.5, duration: 0.5, path: [] };
  const T = await page.evaluate(() => window.m2d.surface.T);
  // Times exact in binary and on a sample (k/16 s): the browser and `render` round a time that
  // falls between samples differently, and the unsmoothed triangle index must switch together.
  for (let i = 0; i < 5; ++i)
    result.scrape.path.push({ time: 0.0625 * (i + 1), triangle: (result.contact.triangle + 7 * i) % T, u: 0.2 + 0.1 * i, v: 0.3 - 0.05 * i });
  const scrape = await page.evaluate(async (s) => {
    const [x] = await window.m2d.renderScrape({ ...s, sampleRate: 48000 });
    return Array.from(x);
  }, result.scrape);
  writeFileSync(join(out, "scrape.f32"), Buffer.from(new Float32Array(scrape).buffer));
  await page.waitForTimeout(300);  // the live strike's audio, for console errors
  await page.screenshot({ path: join(out, "page.png") });

  // The shipped instrument (<name>.dsp): a click strikes its nearest excitation point.
  const shippedMs = await page.evaluate(() => window.m2d.selectProgram("shipped"));
  await page.mouse.click(target.p.x, target.p.y);
  await page.waitForFunction(() => window.m2d.contact !== null && window.m2d.contact.point !== undefined);
  result.shipped = { compileMs: shippedMs, point: await page.evaluate(() => window.m2d.contact.point) };
  const shipped = await page.evaluate(async (point) => {
    const [x] = await window.m2d.renderStrike({ point, sampleRate: 48000, duration: 1, strikeTime: 0.0625, set: { hardness: 1 } });
    return Array.from(x);
  }, result.shipped.point);
  writeFileSync(join(out, "shipped.f32"), Buffer.from(new Float32Array(shipped).buffer));
} catch (e) {
  result.errors.push("driver: " + (e && e.stack ? e.stack : e));
} finally {
  await browser.close();
  writeFileSync(join(out, "result.json"), JSON.stringify(result, null, 1));
}
