// Pure functions of the page: the surface sidecar (generator/modal/surface_shapes.hpp, format
// M2DSURF1), gains at a point of a triangle, and the plots' spectrum and decay.

// base64 of the sidecar -> typed views on one buffer (every block is aligned for its type).
export function decodeSurface(text) {
  const s = atob(text);
  const bytes = new Uint8Array(s.length);
  for (let i = 0; i < s.length; ++i) bytes[i] = s.charCodeAt(i);
  const magic = String.fromCharCode(...bytes.subarray(0, 8));
  if (magic !== "M2DSURF1") throw new Error("not a mesh2dsp surface data file");
  const buffer = bytes.buffer;
  const [V, T, N] = new Uint32Array(buffer, 8, 3);
  let o = 24;
  const take = (Type, count) => { const a = new Type(buffer, o, count); o += a.byteLength; return a; };
  const positions = take(Float32Array, 3 * V);
  const normals = take(Float32Array, 3 * V);
  const triangles = take(Uint32Array, 3 * T);
  const tetVertex = take(Int32Array, V);
  const gains = take(Float32Array, N * V);
  const displacementScale = take(Float32Array, N);
  const displacement = take(Int16Array, 3 * V * N);
  if (o !== buffer.byteLength) throw new Error("surface data: unexpected size");
  return { V, T, N, positions, normals, triangles, tetVertex, gains, displacementScale, displacement };
}

// φₙ·n at the point of triangle t with barycentric weights (1 − u − v, u, v): the gains of its
// corners interpolated, in the form the emitted program uses (e(a) + u (e(b) − e(a)) +
// v (e(c) − e(a)), templates/faust/model.dsp.mustache).
export function pointGains(surface, t, u, v) {
  const [a, b, c] = [0, 1, 2].map((i) => surface.triangles[3 * t + i]);
  const out = new Array(surface.N);
  for (let n = 0; n < surface.N; ++n) {
    const g = (k) => surface.gains[n * surface.V + k];
    out[n] = g(a) + u * (g(b) - g(a)) + v * (g(c) - g(a));
  }
  return out;
}

// In-place radix-2 FFT of (re, im), length a power of two.
function fft(re, im) {
  const n = re.length;
  for (let i = 1, j = 0; i < n; ++i) {
    let bit = n >> 1;
    for (; j & bit; bit >>= 1) j ^= bit;
    j ^= bit;
    if (i < j) { [re[i], re[j]] = [re[j], re[i]]; [im[i], im[j]] = [im[j], im[i]]; }
  }
  for (let len = 2; len <= n; len <<= 1) {
    const a = (-2 * Math.PI) / len;
    for (let i = 0; i < n; i += len)
      for (let k = 0; k < len / 2; ++k) {
        const wr = Math.cos(a * k), wi = Math.sin(a * k);
        const xr = re[i + k + len / 2] * wr - im[i + k + len / 2] * wi;
        const xi = re[i + k + len / 2] * wi + im[i + k + len / 2] * wr;
        re[i + k + len / 2] = re[i + k] - xr; im[i + k + len / 2] = im[i + k] - xi;
        re[i + k] += xr; im[i + k] += xi;
      }
  }
}

// Magnitude spectrum (dB) of the whole signal, Hann-windowed, zero-padded to a power of two.
export function spectrumDb(samples, sampleRate) {
  let n = 1;
  while (n < samples.length) n <<= 1;
  const re = new Float64Array(n), im = new Float64Array(n);
  for (let i = 0; i < samples.length; ++i)
    re[i] = samples[i] * (0.5 - 0.5 * Math.cos((2 * Math.PI * i) / (samples.length - 1)));
  fft(re, im);
  const db = new Float64Array(n / 2);
  for (let k = 0; k < n / 2; ++k) db[k] = 10 * Math.log10(re[k] * re[k] + im[k] * im[k] + 1e-30);
  return { db, binHz: sampleRate / n };
}

// RMS level (dB) in 10 ms frames.
export function decayDb(samples, sampleRate) {
  const frame = Math.max(1, Math.round(0.01 * sampleRate));
  const db = [];
  for (let i = 0; i + frame <= samples.length; i += frame) {
    let sum = 0;
    for (let k = i; k < i + frame; ++k) sum += samples[k] * samples[k];
    db.push(10 * Math.log10(sum / frame + 1e-30));
  }
  return { db, frameS: frame / sampleRate };
}

// Real spherical harmonics to `order` at the unit direction (x, y, z) in ACN order (index
// l² + l + m), orthonormal over the sphere (∫Y² dΩ = 1), without the Condon–Shortley phase:
// Y_lm ∝ P_l^|m|(cos θ)·cos(mφ) for m ≥ 0 and ·sin(|m|φ) for m < 0, θ from +z, φ from +x towards
// +y — the convention of the model file's modes[n].directivity (generator/radiation/bem.hpp).
export function realSphericalHarmonics(order, x, y, z) {
  const out = new Float64Array((order + 1) * (order + 1));
  const ct = Math.max(-1, Math.min(1, z)), st = Math.sqrt(Math.max(0, 1 - ct * ct)), phi = Math.atan2(y, x);
  // Normalised associated Legendre functions P̄_l^m = √((2l+1)/4π·(l−m)!/(l+m)!)·P_l^m by the
  // stable recurrences (no factorials): P̄_m^m from P̄_{m−1}^{m−1}, then upwards in l.
  let pmm = Math.sqrt(1 / (4 * Math.PI));
  for (let m = 0; m <= order; ++m) {
    if (m > 0) pmm *= st * Math.sqrt((2 * m + 1) / (2 * m));
    let prev = 0, cur = pmm;
    for (let l = m; l <= order; ++l) {
      if (l > m) {
        const a = Math.sqrt((4 * l * l - 1) / (l * l - m * m));
        const b = Math.sqrt(((l - 1) * (l - 1) - m * m) / (4 * (l - 1) * (l - 1) - 1));
        const next = a * (ct * cur - b * prev);
        prev = cur; cur = next;
      }
      if (m === 0) out[l * l + l] = cur;
      else {
        out[l * l + l + m] = Math.SQRT2 * cur * Math.cos(m * phi);
        out[l * l + l - m] = Math.SQRT2 * cur * Math.sin(m * phi);
      }
    }
  }
  return out;
}

// |F(d)| of a mode's stored directivity {order, re, im} (F = Σ c_lm Y_lm) at each unit direction
// of `directions` (x, y, z triples).
export function directivityMagnitudes(directivity, directions) {
  const { order, re, im } = directivity;
  const out = new Float64Array(directions.length / 3);
  for (let i = 0; i < out.length; ++i) {
    const y = realSphericalHarmonics(order, directions[3 * i], directions[3 * i + 1], directions[3 * i + 2]);
    let a = 0, b = 0;
    for (let k = 0; k < y.length; ++k) { a += re[k] * y[k]; b += im[k] * y[k]; }
    out[i] = Math.hypot(a, b);
  }
  return out;
}
