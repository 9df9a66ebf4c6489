#!/usr/bin/env python3
"""Makes the real-size objects of `scripts/bench_real_objects.sh` (standard library only):
closed, outward-oriented OBJ/STL surfaces shaped like the classes users bring, at their real
sizes. The bundled bell and bowl are scaled by the benchmark itself (--scale); this adds

  blob.obj        a statue-like lumpy solid, 1.5 m tall, a fine "scanned" surface (~20k vertices)
  wheel.obj       a game-asset wheel: a torus, 0.6 m across, 12 cm tube
  prong_mm.stl    a tuning-fork prong drawn in millimetres as CAD exports it (long slivers)
  blade.obj       a sword blade, 0.8 m x 40 mm x 4 mm

    python3 scripts/make_bench_objects.py OUTDIR
"""
import math, os, struct, sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "meshes"))
from make_meshes import write_obj, check_closed, signed_volume, geodesic_sphere, box  # noqa: E402


def blob(height=1.5, freq=45):
    """A sphere with low-order lumps (a torso, a head-like bulge): not symmetric, finely meshed."""
    verts, tris = geodesic_sphere(1.0, freq)
    out = []
    for x, y, z in verts:
        r = (1.0 + 0.18 * math.sin(3 * x + 1) * math.cos(2 * y) + 0.12 * math.sin(4 * z + 0.5)
             + 0.25 * max(0.0, z) ** 3)
        out.append((0.35 * r * x, 0.3 * r * y, 0.62 * r * z))
    zmin = min(v[2] for v in out)
    zmax = max(v[2] for v in out)
    s = height / (zmax - zmin)
    return [(s * x, s * y, s * (z - zmin)) for x, y, z in out], tris


def torus(R=0.24, r=0.06, n_major=96, n_minor=32):
    verts, tris = [], []
    for i in range(n_major):
        a = 2 * math.pi * i / n_major
        for j in range(n_minor):
            b = 2 * math.pi * j / n_minor
            verts.append(((R + r * math.cos(b)) * math.cos(a), (R + r * math.cos(b)) * math.sin(a),
                          r * math.sin(b)))
    for i in range(n_major):
        for j in range(n_minor):
            p, q = i * n_minor + j, ((i + 1) % n_major) * n_minor + j
            p1, q1 = i * n_minor + (j + 1) % n_minor, ((i + 1) % n_major) * n_minor + (j + 1) % n_minor
            tris += [(p, q, q1), (p, q1, p1)]
    return verts, tris


def prong_stl(path, length=120.0, radius=3.0, segments=24):
    """A cylinder in millimetres, each facet two triangles the full length (CAD export)."""
    ring0 = [(0.0, radius * math.cos(2 * math.pi * k / segments), radius * math.sin(2 * math.pi * k / segments))
             for k in range(segments)]
    ring1 = [(length, y, z) for _, y, z in ring0]
    tris = []
    for k in range(segments):
        k1 = (k + 1) % segments
        tris += [(ring0[k], ring0[k1], ring1[k1]), (ring0[k], ring1[k1], ring1[k])]
        tris += [((0.0, 0.0, 0.0), ring0[k1], ring0[k]), ((length, 0.0, 0.0), ring1[k], ring1[k1])]
    with open(path, "wb") as f:
        f.write(b"mesh2dsp bench prong".ljust(80, b" "))
        f.write(struct.pack("<I", len(tris)))
        for a, b, c in tris:
            f.write(struct.pack("<12fH", 0, 0, 0, *a, *b, *c, 0))


def main(outdir):
    os.makedirs(outdir, exist_ok=True)
    for name, (verts, tris), comment in [
        ("blob", blob(), "statue-like lumpy solid, 1.5 m tall"),
        ("wheel", torus(), "torus wheel, 0.6 m across, 12 cm tube"),
        ("blade", box(0.8, 0.04, 0.004, 160, 8, 1), "sword blade 0.8 x 0.04 x 0.004 m"),
    ]:
        assert check_closed(tris) and signed_volume(verts, tris) > 0, name
        write_obj(os.path.join(outdir, name + ".obj"), verts, tris, comment)
    prong_stl(os.path.join(outdir, "prong_mm.stl"))


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else ".")
