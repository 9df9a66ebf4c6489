#!/usr/bin/env python3
"""Writes a synthetic modal model with N modes for the emitter benchmark and tests: frequencies
spread log-uniformly over 50 Hz - 20 kHz (all below Nyquist at 48 kHz, so every mode is computed),
T60 from 5 s down to 0.2 s, one excitation point, or POINTS of them on a sphere with TRIANGLES
contact triangles between neighbours (a wide model for the index arithmetic of the emitted code).
Deterministic (fixed seed).  Usage: synthetic_model.py N PATH [POINTS [TRIANGLES]]"""
import json, math, random, sys

n, path = int(sys.argv[1]), sys.argv[2]
points = int(sys.argv[3]) if len(sys.argv) > 3 else 1
triangles = int(sys.argv[4]) if len(sys.argv) > 4 else 0
rng = random.Random(n)
freqs = sorted(50.0 * (400.0 ** rng.random()) for _ in range(n))
modes = []
for f in freqs:
    t60 = 5.0 * (0.04 ** ((math.log(f / 50.0)) / math.log(400.0)))
    w = 2 * math.pi * f
    modes.append({"frequency_hz": f, "damping_ratio": math.log(1000) / (t60 * w), "t60_s": t60})
model = {"format": "mesh2dsp-modal-model", "version": 1, "name": "bench%d" % n,
         "mesh": {"source": "synthetic"},
         "material": {"name": "steel", "density": 7850, "youngs_modulus": 2e11, "poisson_ratio": 0.29},
         "modes": modes,
         "excitations": [{"position": [0, 0, 0], "gains": [rng.uniform(-1, 1) for _ in range(n)]}]}
if points > 1:
    # Fibonacci points on the unit sphere; mode m's gain a smooth pattern over it, so
    # neighbouring points have neighbouring gains.
    model["excitations"] = []
    for k in range(points):
        z = 1 - 2 * (k + 0.5) / points
        r, phi = math.sqrt(1 - z * z), k * math.pi * (3 - math.sqrt(5))
        x, y = r * math.cos(phi), r * math.sin(phi)
        model["excitations"].append({"position": [x, y, z], "direction": [x, y, z],
                                     "gains": [math.cos((m % 5 + 1) * phi + m) * (0.5 + 0.5 * z) for m in range(n)]})
    # Triangles between consecutive points (neighbours along the spiral) spread over the list,
    # so the highest indices are used too.
    step = max(1, (points - 3) // max(triangles, 1))
    model["excitation_triangles"] = [[k, k + 1, k + 2] for k in range(0, points - 2, step)][:triangles]
with open(path, "w") as out:
    json.dump(model, out)
