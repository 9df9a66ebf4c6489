#!/usr/bin/env python3
"""Writes a synthetic modal model with N modes for the emitter benchmark: frequencies spread
log-uniformly over 50 Hz - 20 kHz (all below Nyquist at 48 kHz, so every mode is computed),
T60 from 5 s down to 0.2 s, one excitation point. Deterministic (fixed seed)."""
import json, math, random, sys

n, path = int(sys.argv[1]), sys.argv[2]
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
with open(path, "w") as out:
    json.dump(model, out)
