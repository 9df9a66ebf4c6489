// The page of `mesh2dsp view`: the object and its modes (three.js), strike anywhere, and the
// emitted Faust compiled in the browser by Faust's own WebAssembly compiler (faustwasm) into an
// AudioWorklet. Everything comes from data.js and faust.js beside this file: no network.
//
// The program played is <name>_surface.dsp: the emitter's instrument with every surface vertex
// an excitation point and the surface triangles as its contact triangles. A click in triangle t
// at barycentric (u, v) sets its moving contact to (t, u, v): the program then interpolates
// φ·n inside that triangle exactly as the gain column of the mode table does here.
import * as THREE from "three";
import { OrbitControls } from "three/examples/jsm/controls/OrbitControls.js";
import { LibFaust, FaustCompiler, FaustMonoDspGenerator } from "@grame/faustwasm";
import { FaustUI } from "@shren/faust-ui";
import { decodeSurface, pointGains, spectrumDb, decayDb, directivityMagnitudes } from "./surface.js";

const D = window.M2D_DATA;
const model = D.model;
const surface = decodeSurface(D.surface);
const $ = (id) => document.getElementById(id);
const status = (text) => { $("status").textContent = text; };

// ---------------------------------------------------------------- the object
const canvas = $("canvas");
const renderer = new THREE.WebGLRenderer({ canvas, antialias: true, preserveDrawingBuffer: true });
renderer.setPixelRatio(window.devicePixelRatio || 1);
const scene = new THREE.Scene();
scene.background = new THREE.Color(0x1b1d22);
const camera = new THREE.PerspectiveCamera(40, 1, 1e-4, 1e3);
scene.add(new THREE.HemisphereLight(0xffffff, 0x303040, 1.6));
const sun = new THREE.DirectionalLight(0xffffff, 1.8);
scene.add(sun);

const rest = Float32Array.from(surface.positions);
const geometry = new THREE.BufferGeometry();
geometry.setAttribute("position", new THREE.BufferAttribute(Float32Array.from(rest), 3));
geometry.setAttribute("normal", new THREE.BufferAttribute(Float32Array.from(surface.normals), 3));
const colors = new Float32Array(3 * surface.V).fill(0.75);
geometry.setAttribute("color", new THREE.BufferAttribute(colors, 3));
geometry.setIndex(new THREE.BufferAttribute(surface.triangles, 1));
geometry.computeBoundingSphere();
const mesh = new THREE.Mesh(geometry, new THREE.MeshStandardMaterial({
  vertexColors: true, metalness: 0.2, roughness: 0.55, side: THREE.DoubleSide }));
scene.add(mesh);
const radius = geometry.boundingSphere.radius;
const centre = geometry.boundingSphere.center.clone();

// Excitation points of the shipped program (the model's K points).
const dotGeometry = new THREE.SphereGeometry(radius * 0.02, 12, 8);
const dotMaterial = new THREE.MeshBasicMaterial({ color: 0xffb000 });
for (const e of model.excitations) {
  const dot = new THREE.Mesh(dotGeometry, dotMaterial);
  dot.position.set(...e.position);
  scene.add(dot);
}
const marker = new THREE.Mesh(new THREE.SphereGeometry(radius * 0.03, 16, 12),
  new THREE.MeshBasicMaterial({ color: 0x40ff80 }));
marker.visible = false;
scene.add(marker);

// ---------------------------------------------------------------- directivity
// The selected mode's far-field pattern, when the model has one (--radiation bem stores it as
// model.modes[n].directivity): a see-through balloon about the radiation centre whose radius in
// each direction d is ∝ |F(d)|, its widest lobe as far out as the object's bounding sphere (the view frames it), coloured from
// dark blue (quiet) to yellow (loudest).
const balloonGeometry = new THREE.SphereGeometry(1, 48, 24);
const balloonDirections = Float64Array.from(balloonGeometry.attributes.position.array);  // unit vectors
balloonGeometry.setAttribute("color", new THREE.BufferAttribute(new Float32Array(balloonDirections.length), 3));
const balloon = new THREE.Mesh(balloonGeometry, new THREE.MeshBasicMaterial({
  vertexColors: true, transparent: true, opacity: 0.4, depthWrite: false, side: THREE.DoubleSide }));
balloon.visible = false;
balloon.position.set(...(model.analysis && model.analysis.radiation_centre_m ? model.analysis.radiation_centre_m : centre.toArray()));
scene.add(balloon);
let showDirectivity = true;
// Shapes the balloon for mode n; returns what it drew (null: the mode has no directivity).
function setDirectivity(n) {
  const d = model.modes[n] && model.modes[n].directivity;
  balloon.visible = Boolean(d) && showDirectivity;
  if (!d) return null;
  const magnitudes = directivityMagnitudes(d, balloonDirections);
  let peak = 0;
  for (const m of magnitudes) peak = Math.max(peak, m);
  const scale = peak > 0 ? radius / peak : 0;
  const pos = balloonGeometry.attributes.position.array, col = balloonGeometry.attributes.color.array;
  for (let i = 0; i < magnitudes.length; ++i) {
    const r = magnitudes[i] * scale, t = peak > 0 ? magnitudes[i] / peak : 0;
    for (let c = 0; c < 3; ++c) pos[3 * i + c] = r * balloonDirections[3 * i + c];
    col[3 * i] = 0.15 + 0.85 * t; col[3 * i + 1] = 0.2 + 0.7 * t; col[3 * i + 2] = 0.6 * (1 - t);
  }
  balloonGeometry.attributes.position.needsUpdate = true;
  balloonGeometry.attributes.color.needsUpdate = true;
  balloonGeometry.computeBoundingSphere();
  return { mode: n, order: d.order, peak, shown: balloon.visible, directions: Array.from(balloonDirections),
           magnitudes: Array.from(magnitudes) };
}
if (!model.modes.some((m) => m.directivity)) document.getElementById("directivityToggle").style.display = "none";

camera.near = radius / 100; camera.far = radius * 100;
const controls = new OrbitControls(camera, canvas);
controls.target.copy(centre);
let framed = false;

// The whole object in view: the bounding sphere fits the narrower of the two fields of view.
function frameObject() {
  const vertical = THREE.MathUtils.degToRad(camera.fov);
  const horizontal = 2 * Math.atan(Math.tan(vertical / 2) * camera.aspect);
  const distance = (1.1 * radius) / Math.sin(Math.min(vertical, horizontal) / 2);
  camera.position.copy(centre).add(new THREE.Vector3(0.45, 0.35, 0.82).normalize().multiplyScalar(distance));
  sun.position.copy(camera.position);
  controls.update();
  framed = true;
}

function resize() {
  const w = canvas.clientWidth || 800, h = canvas.clientHeight || 600;
  renderer.setSize(w, h, false);
  camera.aspect = w / h;
  camera.updateProjectionMatrix();
  if (!framed) frameObject();
}
window.addEventListener("resize", resize);
resize();

// ---------------------------------------------------------------- modes: table and animation
let selectedMode = 0;
let animate = true;
let contact = null;  // {triangle, u, v}; null: the shipped program's default point

// Vertex positions for mode n at phase s (rest + s · a · φₙ), a so the largest swing is 8 % of
// the object's radius. Also colours the surface by φₙ·n (blue − / red +).
function setModeFrame(n, s) {
  const pos = geometry.attributes.position.array;
  const q = surface.displacementScale[n] / 32767;
  const a = surface.displacementScale[n] > 0 ? 0.08 * radius / surface.displacementScale[n] : 0;
  const base = 3 * surface.V * n;
  let peak = 0;
  for (let v = 0; v < surface.V; ++v) peak = Math.max(peak, Math.abs(surface.gains[n * surface.V + v]));
  for (let v = 0; v < surface.V; ++v) {
    for (let c = 0; c < 3; ++c) pos[3 * v + c] = rest[3 * v + c] + s * a * q * surface.displacement[base + 3 * v + c];
    const g = peak > 0 ? surface.gains[n * surface.V + v] / peak : 0;
    colors[3 * v] = 0.55 + 0.45 * Math.max(0, g);
    colors[3 * v + 1] = 0.55 - 0.35 * Math.abs(g);
    colors[3 * v + 2] = 0.55 + 0.45 * Math.max(0, -g);
  }
  geometry.attributes.position.needsUpdate = true;
  geometry.attributes.color.needsUpdate = true;
  geometry.computeBoundingSphere();
  return pos;
}

const tbody = $("modes").querySelector("tbody");
function fillModeTable() {
  const gains = contact && contact.point === undefined ? pointGains(surface, contact.triangle, contact.u, contact.v) : null;
  const k = contact && contact.point !== undefined ? contact.point : defaultPoint();
  tbody.innerHTML = "";
  model.modes.forEach((m, n) => {
    const tr = document.createElement("tr");
    tr.className = "mode" + (n === selectedMode ? " selected" : "");
    const g = gains ? gains[n] : model.excitations[k].gains[n];
    tr.innerHTML = `<td>${n + 1}</td><td>${m.frequency_hz.toFixed(2)}</td>` +
      `<td>${m.t60_s === null ? "∞" : m.t60_s.toFixed(3)}</td><td>${g.toExponential(3)}</td>`;
    tr.onclick = () => { selectedMode = n; fillModeTable(); setDirectivity(n); };
    tbody.appendChild(tr);
  });
}
// The shipped program's default point: the loudest (largest Σ|gain|), as the emitter picks it.
function defaultPoint() {
  let best = 0, bestSum = -1;
  model.excitations.forEach((e, k) => {
    const sum = e.gains.reduce((a, g) => a + Math.abs(g), 0);
    if (sum > bestSum) { bestSum = sum; best = k; }
  });
  return best;
}
fillModeTable();
setDirectivity(selectedMode);
$("directivity").onchange = (e) => { showDirectivity = e.target.checked; setDirectivity(selectedMode); };
$("animate").onchange = (e) => { animate = e.target.checked; if (!animate) setModeFrame(selectedMode, 0); };

const started = performance.now();
function frame() {
  if (animate) setModeFrame(selectedMode, Math.sin(2 * Math.PI * 0.8 * (performance.now() - started) / 1000));
  renderer.render(scene, camera);
  requestAnimationFrame(frame);
}

// ---------------------------------------------------------------- Faust
// The two programs: every surface point (strike anywhere), or the instrument as shipped (its K
// excitation points: a click strikes the nearest one).
const programs = {
  surface: { name: D.name + "_surface", file: D.dspFile, code: D.dsp },
  shipped: { name: D.name, file: D.shippedDspFile, code: D.shippedDsp },
};
let program = "surface";
let generator = null;
let compiler = null;
let compiled = false;
let liveContext = null, liveNode = null;
const params = {};        // address -> value: the UI's state, applied to every node made
const addressOf = {};     // label -> address

// faust.js (2 MB: the compiler and its libraries, gzipped) loaded after the object is on screen; a
// classic script element, which a page opened from file:// may load where it may not fetch.
function loadScript(src) {
  return new Promise((resolve, reject) => {
    const script = document.createElement("script");
    script.src = src;
    script.onload = resolve;
    script.onerror = () => reject(new Error("cannot load " + src + " (is it beside index.html?)"));
    document.head.appendChild(script);
  });
}

async function faustCompiler() {
  if (compiler) return compiler;
  if (!window.FaustModule) await loadScript("faust.js");
  // base64 of gzip (web/build.mjs), inflated by the browser.
  const inflate = async (text) => {
    const s = atob(text);
    const b = new Uint8Array(s.length);
    for (let i = 0; i < s.length; ++i) b[i] = s.charCodeAt(i);
    const stream = new Blob([b]).stream().pipeThrough(new DecompressionStream("gzip"));
    return new Uint8Array(await new Response(stream).arrayBuffer());
  };
  const [wasm, data] = await Promise.all([inflate(window.M2D_FAUST.wasm), inflate(window.M2D_FAUST.data)]);
  const faustModule = await window.FaustModule({
    wasmBinary: wasm.buffer,
    getPreloadedPackage: (name) => (name === "libfaust-wasm.data" ? data.buffer : new ArrayBuffer(0)),
  });
  compiler = new FaustCompiler(new LibFaust(faustModule));
  return compiler;
}

// Compiles `which` program (faustwasm), makes its controls, and replaces the live node if any.
async function compileFaust(which = program) {
  const c = await faustCompiler();
  const t0 = performance.now();
  const p = programs[which];
  const next = new FaustMonoDspGenerator();
  const ok = await next.compile(c, p.name, p.code, "-ftz 2");
  if (!ok) throw new Error("faustwasm could not compile " + p.file + ": " + c.getErrorMessage());
  generator = next;
  program = which;
  compiled = true;
  for (const key of Object.keys(addressOf)) delete addressOf[key];
  for (const key of Object.keys(params)) delete params[key];
  const walk = (items) => items.forEach((item) => {
    if (item.items) return walk(item.items);
    if (!item.address) return;
    addressOf[item.label] = item.address;
    params[item.address] = item.init ?? 0;
  });
  walk(generator.getUI());
  buildControls(generator.getUI());
  if (liveNode) {
    liveNode.disconnect();
    liveNode = await makeNode(liveContext);
  }
  contact = null;
  marker.visible = false;
  fillModeTable();
  $("program").innerHTML = `playing <a href="${p.file}">${p.file}</a>` +
    (which === "surface" ? " (every surface point an excitation point)" : " (the instrument as `generate --faust` writes it)");
  return performance.now() - t0;
}

function setParam(label, value, node = liveNode) {
  const address = addressOf[label];
  if (!address) throw new Error("the program has no control " + label);
  params[address] = value;
  if (node) node.setParamValue(address, value);
  if (faustUI) faustUI.paramChangeByDSP(address, value);
}

// The Faust program's controls drawn by Faust's own web UI (faust-ui) from the program's UI
// description; its gate button strikes at the current contact.
let faustUI = null;
function buildControls(ui) {
  const root = $("controls");
  root.innerHTML = "";
  faustUI = new FaustUI({ root, ui, listenWindowResize: true, listenWindowMessage: false });
  faustUI.paramChangeByUI = (address, value) => {
    params[address] = value;
    if (address === addressOf.gate) {
      if (value) strikeNow().catch(report);
      return;
    }
    if (liveNode) liveNode.setParamValue(address, value);
  };
  for (const [address, value] of Object.entries(params)) faustUI.paramChangeByDSP(address, value);
}

// A page opened from file:// has an opaque origin, and Chromium refuses its blob: URLs as
// AudioWorklet modules; the same module text as a data: URL loads. faustwasm makes the blob.
function acceptFileOrigin(context) {
  if (location.protocol !== "file:" || context.audioWorklet.m2dPatched) return context;
  const addModule = context.audioWorklet.addModule.bind(context.audioWorklet);
  context.audioWorklet.addModule = async (url, options) => {
    if (!String(url).startsWith("blob:")) return addModule(url, options);
    const text = await (await fetch(url)).text();
    return addModule("data:text/javascript;base64," + btoa(unescape(encodeURIComponent(text))), options);
  };
  context.audioWorklet.m2dPatched = true;
  return context;
}

async function makeNode(context) {
  const node = await generator.createNode(acceptFileOrigin(context));
  if (!node) throw new Error("faustwasm could not make the AudioWorklet node");
  for (const [address, value] of Object.entries(params)) node.setParamValue(address, value);
  node.connect(context.destination);
  return node;
}

async function startAudio() {
  if (liveContext) { await liveContext.resume(); return; }
  liveContext = new AudioContext();
  liveNode = await makeNode(liveContext);
  $("audio").textContent = "audio on";
}
$("audio").onclick = () => startAudio().catch(report);

// ---------------------------------------------------------------- strike, scrape
function applyContact(node = liveNode) {
  if (!contact) return;
  if (contact.point !== undefined) {  // the shipped program: one of its excitation points
    setParam("excitation point", contact.point, node);
    setParam("position glide", 0, node);
    return;
  }
  if (!addressOf["moving contact"]) return;
  setParam("moving contact", 1, node);
  setParam("contact triangle", contact.triangle, node);
  setParam("contact u", contact.u, node);
  setParam("contact v", contact.v, node);
}

async function strikeNow() {
  await startAudio();
  applyContact();
  setParam("excitation", 0);  // impact
  const t = liveContext.currentTime + 0.02;
  liveNode.setParamValue(addressOf.gate, 1, t);
  liveNode.setParamValue(addressOf.gate, 0, t + 0.01);
  plotLastStrike().catch(report);
}

// The same strike rendered offline (OfflineAudioContext, the same program and controls):
// what the plots show, and what the tests compare with `mesh2dsp render`.
// `set`: controls by label for this render only, e.g. {hardness: 1}.
async function renderStrike({ triangle, u, v, point, sampleRate = 48000, duration = 1, strikeTime = 0.05, set = {} } = {}) {
  if (!compiled) throw new Error("the program is not compiled yet");
  const channels = generator.getMeta().outputs || 1;
  const context = new OfflineAudioContext(channels, Math.round(duration * sampleRate), sampleRate);
  const node = await generator.createNode(acceptFileOrigin(context));
  if (!node) throw new Error("faustwasm could not make the offline node");
  const at = (label, value, time) => node.parameters.get(addressOf[label]).setValueAtTime(value, time);
  for (const [address, value] of Object.entries(params))
    if (node.parameters.has(address)) node.parameters.get(address).setValueAtTime(value, 0);
  if (triangle !== undefined) {
    at("moving contact", 1, 0); at("contact triangle", triangle, 0);
    at("contact u", u, 0); at("contact v", v, 0);
  }
  if (point !== undefined) { at("excitation point", point, 0); at("position glide", 0, 0); }
  at("excitation", 0, 0);
  for (const [label, value] of Object.entries(set)) at(label, value, 0);
  at("gate", 1, strikeTime);
  at("gate", 0, strikeTime + 0.01);
  node.connect(context.destination);
  const buffer = await context.startRendering();
  return Array.from({ length: channels }, (_, c) => buffer.getChannelData(c));
}

// A scrape along `path` ([{time, triangle, u, v}], times in s) rendered offline: the scrape
// contact model with `force` N at `speed` m/s, the moving contact at the first point from the
// start and set to each point at its time, as a drag on the object sets it live.
async function renderScrape({ path, force = 2, speed = 0.5, sampleRate = 48000, duration = 0.5 } = {}) {
  if (!compiled) throw new Error("the program is not compiled yet");
  const channels = generator.getMeta().outputs || 1;
  const context = new OfflineAudioContext(channels, Math.round(duration * sampleRate), sampleRate);
  const node = await generator.createNode(acceptFileOrigin(context));
  const at = (label, value, time) => node.parameters.get(addressOf[label]).setValueAtTime(value, time);
  for (const [address, value] of Object.entries(params))
    if (node.parameters.has(address)) node.parameters.get(address).setValueAtTime(value, 0);
  at("excitation", 3, 0); at("moving contact", 1, 0); at("force", force, 0); at("speed", speed, 0);
  if (path.length) { at("contact triangle", path[0].triangle, 0); at("contact u", path[0].u, 0); at("contact v", path[0].v, 0); }
  for (const p of path) { at("contact triangle", p.triangle, p.time); at("contact u", p.u, p.time); at("contact v", p.v, p.time); }
  node.connect(context.destination);
  const buffer = await context.startRendering();
  return Array.from({ length: channels }, (_, c) => buffer.getChannelData(c));
}

// The controls' current values by label (what the live program was last given).
function paramsByLabel() {
  const out = {};
  for (const [label, address] of Object.entries(addressOf)) out[label] = params[address];
  return out;
}

let lastStrike = null;
async function plotLastStrike() {
  const sampleRate = 48000;
  const [samples] = await renderStrike({ ...(contact || {}), sampleRate, duration: 1.5 });
  lastStrike = samples;
  drawSpectrum(samples, sampleRate);
  drawDecay(samples, sampleRate);
}

const raycaster = new THREE.Raycaster();
function hit(event) {
  const r = canvas.getBoundingClientRect();
  const p = new THREE.Vector2(((event.clientX - r.left) / r.width) * 2 - 1, -((event.clientY - r.top) / r.height) * 2 + 1);
  raycaster.setFromCamera(p, camera);
  const [h] = raycaster.intersectObject(mesh);
  return h ? surfacePoint(h.faceIndex, h.point) : null;
}

// The contact at a point of triangle t (rest shape): barycentric weights of its 2nd and 3rd
// vertices, as the program's contact u and v.
function surfacePoint(t, point) {
  const [a, b, c] = [0, 1, 2].map((i) => new THREE.Vector3().fromArray(rest, 3 * surface.triangles[3 * t + i]));
  const w = new THREE.Vector3();
  new THREE.Triangle(a, b, c).getBarycoord(point, w);
  const u = Math.min(1, Math.max(0, w.y)), v = Math.min(1 - u, Math.max(0, w.z));
  return { triangle: t, u, v, point: a.clone().multiplyScalar(1 - u - v).addScaledVector(b, u).addScaledVector(c, v) };
}

function setContact(c) {
  if (program === "shipped") {
    // The shipped instrument strikes its own K points: the nearest to the click.
    let best = 0;
    model.excitations.forEach((e, k) => {
      if (c.point.distanceToSquared(new THREE.Vector3(...e.position)) <
          c.point.distanceToSquared(new THREE.Vector3(...model.excitations[best].position))) best = k;
    });
    contact = { point: best };
    marker.position.set(...model.excitations[best].position);
    marker.visible = true;
    $("point").textContent = `excitation point ${best} of ${model.excitations.length} (the nearest to the click)`;
    fillModeTable();
    return;
  }
  contact = { triangle: c.triangle, u: c.u, v: c.v };
  marker.position.copy(c.point);
  marker.visible = true;
  const g = pointGains(surface, c.triangle, c.u, c.v);
  $("point").textContent = `triangle ${c.triangle}, u ${c.u.toFixed(3)}, v ${c.v.toFixed(3)} at ` +
    `(${c.point.x.toFixed(4)}, ${c.point.y.toFixed(4)}, ${c.point.z.toFixed(4)}) m; ` +
    `strongest mode here: ${1 + g.reduce((best, x, n) => (Math.abs(x) > Math.abs(g[best]) ? n : best), 0)}`;
  fillModeTable();
}

let down = null, scraping = null;
canvas.addEventListener("pointerdown", (e) => {
  down = { x: e.clientX, y: e.clientY };
  if (e.shiftKey && program === "surface") {
    const c = hit(e);
    if (!c) return;
    controls.enabled = false;
    scraping = { last: c.point, time: performance.now() };
    setContact(c);
    startAudio().then(() => {
      applyContact();
      setParam("excitation", 3);  // scrape
      setParam("force", 2);
    }).catch(report);
  }
});
canvas.addEventListener("pointermove", (e) => {
  if (!scraping || !liveNode) return;
  const c = hit(e);
  if (!c) return;
  const now = performance.now();
  const speed = c.point.distanceTo(scraping.last) / Math.max(1e-3, (now - scraping.time) / 1000);
  scraping = { last: c.point, time: now };
  setContact(c);
  applyContact();
  setParam("speed", Math.min(5, Math.max(0.01, speed)));
});
canvas.addEventListener("pointerup", (e) => {
  if (scraping) {
    scraping = null;
    controls.enabled = true;
    if (liveNode) setParam("force", 0);
    return;
  }
  if (!down || Math.hypot(e.clientX - down.x, e.clientY - down.y) > 4) return;
  const c = hit(e);
  if (!c) return;
  setContact(c);
  strikeNow().catch(report);
});

// ---------------------------------------------------------------- plots
function drawSpectrum(samples, sampleRate) {
  const g = $("spectrum").getContext("2d");
  const { width: w, height: h } = g.canvas;
  const { db, binHz } = spectrumDb(samples, sampleRate);
  const fmax = Math.min(sampleRate / 2, 1.2 * model.modes[model.modes.length - 1].frequency_hz);
  const lo = Math.log(Math.max(10, 0.7 * model.modes[0].frequency_hz)), hi = Math.log(fmax);
  const x = (f) => ((Math.log(f) - lo) / (hi - lo)) * w;
  const top = Math.max(...db), y = (d) => ((top - d) / 90) * h;
  g.fillStyle = "#15171b"; g.fillRect(0, 0, w, h);
  g.strokeStyle = "#fc6"; g.globalAlpha = 0.5;
  for (const m of model.modes) { g.beginPath(); g.moveTo(x(m.frequency_hz), 0); g.lineTo(x(m.frequency_hz), h); g.stroke(); }
  g.globalAlpha = 1; g.strokeStyle = "#8cf"; g.beginPath();
  for (let k = 1; k < db.length; ++k) { const f = k * binHz; if (f < Math.exp(lo) || f > fmax) continue; g.lineTo(x(f), y(db[k])); }
  g.stroke();
  g.fillStyle = "#ccc"; g.font = "20px sans-serif";
  g.fillText("spectrum of the last strike (dB, log f) · lines: the model's modes", 8, 22);
}

function drawDecay(samples, sampleRate) {
  const g = $("decay").getContext("2d");
  const { width: w, height: h } = g.canvas;
  const { db, frameS } = decayDb(samples, sampleRate);
  const top = Math.max(...db), y = (d) => ((top - d) / 80) * h;
  g.fillStyle = "#15171b"; g.fillRect(0, 0, w, h);
  g.strokeStyle = "#8f8"; g.beginPath();
  db.forEach((d, i) => g.lineTo((i / db.length) * w, y(d)));
  g.stroke();
  g.fillStyle = "#ccc"; g.font = "20px sans-serif";
  g.fillText(`decay: level in dB (80 dB range) over ${(db.length * frameS).toFixed(2)} s`, 8, 22);
}

// ---------------------------------------------------------------- start
function report(error) {
  status("error: " + (error && error.message ? error.message : error));
  console.error(error);
}

$("title").textContent = `${D.name}: ${model.modes.length} modes, ${surface.V} surface vertices, ${model.material.name}`;
requestAnimationFrame(frame);
function compileAndSay(which) {
  status(`compiling ${programs[which].file} with faustwasm…`);
  return compileFaust(which).then((ms) => {
    status(`${programs[which].file} compiled by faustwasm in ${(ms / 1000).toFixed(2)} s: click the object`);
    return ms;
  }).catch((e) => { report(e); throw e; });
}
const ready = compileAndSay("surface");
$("programSelect").onchange = (e) => { compileAndSay(e.target.value).catch(() => {}); };

// For the tests (tests/web) and the curious: the page's own functions.
window.m2d = { ready, surface, selectProgram: (which) => compileAndSay(which), get program() { return program; }, setModeFrame, renderStrike, renderScrape, paramsByLabel, pointGains: (t, u, v) => pointGains(surface, t, u, v),
  setContact: (t, u, v) => setContact(surfacePoint(t, new THREE.Vector3(
    ...[0, 1, 2].map((c) => rest[3 * surface.triangles[3 * t] + c] * (1 - u - v) +
      rest[3 * surface.triangles[3 * t + 1] + c] * u + rest[3 * surface.triangles[3 * t + 2] + c] * v)))),
  plotLastStrike, render: () => renderer.render(scene, camera), setDirectivity,
  showDirectivity: (on) => { showDirectivity = on; return setDirectivity(selectedMode); },
  setAnimate: (on) => { animate = on; }, project: (x, y, z) => {
    const p = new THREE.Vector3(x, y, z).project(camera); const r = canvas.getBoundingClientRect();
    return { x: r.left + (p.x + 1) / 2 * r.width, y: r.top + (1 - p.y) / 2 * r.height }; },
  get contact() { return contact; } };
