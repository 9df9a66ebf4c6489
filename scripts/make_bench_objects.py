#!/usr/bin/env python3
"""Makes the real-size objects of `scripts/bench_real_objects.sh`: look-alikes of the files users
bring, tessellated the way those files are (scans, CAD exports, game assets), because the smooth
regular grids the benchmark used before hid what real tessellation does to the volume mesher.

  statue.obj    scanned statue, 1.0 m tall, ~14.5k vertices: a lumpy figure on a plinth, thin
                arms (5-6 cm) attached to the body (one raised, one with the hand on the hip);
                marching-tetrahedra tessellation of a warped, rotated, jittered lattice (triangle
                sizes vary ~3x, some slivers, no grid pattern), ~0.3 mm scan noise
  bell.obj      CAD-revolved church bell, 0.7 m tall, 0.84 m across, ~15k vertices, wall
                1.6-5 cm (sound bow thickest), closed crown: 360 segments, profile sampled by
                chord tolerance (uneven), long thin triangles, triangle fans at both poles
  bracket.stl   CAD L-bracket, 20 x 15 x 6 cm, ~7k vertices, binary STL: 5 through-holes,
                an inner fillet and an outer round, sharp 90 degree creases, planar faces
                triangulated as exporters do (fans and long slivers from hole rims to corners)
  knot_mm.obj   trefoil-knot tube in MILLIMETRES, ~100 mm across, tube radius 8 mm, ~12.5k
                vertices, irregular sampling along and around the tube
  sword.obj     quad-dominant sword scan, 0.87 m: pommel, grip, crossguard, blade 4.5 mm thick
                at the ridge, 1.5 mm flat edges; sliver quads along the edges, smooth scan noise,
                some triangles (pole fans, some split quads)
  fork_mm.stl   tuning fork in MILLIMETRES (120 mm prongs, 5 x 5 mm section, U-bend, stem),
                binary STL of a CAD extrusion: every flat facet two long triangles
  wheel.obj     low-poly game wheel (tyre + rim + disc + hub with an axle hole), 0.64 m across,
                408 vertices, quads with flat-shading face normals (f v//vn)
  spot.obj      the real scan (Keenan Crane, public domain), copied from $SPOT_OBJ or
                ../shared/benchmarks/real/spot.obj; skipped with a message when absent

Every object is checked before it is written (and the STL files after float32 rounding, as the
tool reads them): closed, edge- and vertex-manifold, consistently oriented, positive volume, one
body, no zero-area face, no duplicate vertex, no self-intersection (grid broad phase + triangle
pair tests). Quads are checked as the tool triangulates them (fan from the first corner).
Deterministic (fixed seeds), standard library + numpy.

    python3 scripts/make_bench_objects.py OUTDIR [NAME ...]     # NAME: statue bell ... (all)
    python3 scripts/make_bench_objects.py --check FILE ...      # check existing OBJ/STL files
"""
import math, os, shutil, struct, sys, time

try:
    import numpy as np
except ImportError:  # pyenv's python3 may lack numpy while Debian's has it (python3-numpy)
    if os.path.exists("/usr/bin/python3") and os.path.realpath(sys.executable) != "/usr/bin/python3" \
            and not os.environ.get("MESH2DSP_NO_REEXEC"):
        os.environ["MESH2DSP_NO_REEXEC"] = "1"
        os.execv("/usr/bin/python3", ["/usr/bin/python3"] + sys.argv)
    sys.exit("make_bench_objects.py: needs numpy (apt-get install python3-numpy)")

here = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(here, "..", "meshes"))
from make_meshes import write_obj, check_closed, signed_volume  # noqa: E402,F401  (kept importable)


# ----------------------------------------------------------------------------------------------
# Checking

def _edges_of(F):
    return F[:, [0, 1, 1, 2, 2, 0]].reshape(-1, 2)


def _components(nv, E):
    """Connected components of the vertex graph (label propagation with pointer jumping)."""
    lab = np.arange(nv)
    a, b = E[:, 0], E[:, 1]
    while True:
        m = np.minimum(lab[a], lab[b])
        new = lab.copy()
        np.minimum.at(new, a, m)
        np.minimum.at(new, b, m)
        new = new[new]
        new = new[new]
        if np.array_equal(new, lab):
            return lab
        lab = new


def _vertex_fan_cycles(F, nv):
    """Number of corner cycles around each vertex (1 for a manifold vertex)."""
    m = len(F)
    src = F.reshape(-1)                      # half-edge h = 3f+k goes F[f,k] -> F[f,(k+1)%3]
    dst = F[:, [1, 2, 0]].reshape(-1)
    key = src.astype(np.int64) * nv + dst
    order = np.argsort(key)
    rkey = dst.astype(np.int64) * nv + src
    pos = np.searchsorted(key[order], rkey)
    twin = order[np.minimum(pos, len(key) - 1)]
    h = np.arange(3 * m)
    nxt = (h // 3) * 3 + (h % 3 + 1) % 3
    succ = nxt[twin]                         # next outgoing half-edge around the same source vertex
    seen = np.zeros(3 * m, bool)
    cycles = np.zeros(nv, int)
    succ_l = succ.tolist()
    src_l = src.tolist()
    for s in range(3 * m):
        if seen[s]:
            continue
        cycles[src_l[s]] += 1
        x = s
        while not seen[x]:
            seen[x] = True
            x = succ_l[x]
    return cycles


def _cross(a, b):
    return np.stack([a[:, 1] * b[:, 2] - a[:, 2] * b[:, 1],
                     a[:, 2] * b[:, 0] - a[:, 0] * b[:, 2],
                     a[:, 0] * b[:, 1] - a[:, 1] * b[:, 0]], axis=1)


def _dot(a, b):
    return np.einsum("ij,ij->i", a, b)


def _seg_crosses_tri(P, Q, A, B, C, tol):
    """Segment PQ meets triangle ABC (rows; non-coplanar case). Touching counts as meeting."""
    n = _cross(B - A, C - A)
    nn = np.sqrt(_dot(n, n))
    dP = _dot(P - A, n) / nn
    dQ = _dot(Q - A, n) / nn
    straddle = (np.minimum(dP, dQ) <= tol) & (np.maximum(dP, dQ) >= -tol) & \
               ~((np.abs(dP) <= tol) & (np.abs(dQ) <= tol))
    denom = np.where(np.abs(dP - dQ) > 0, dP - dQ, 1.0)
    t = (dP / denom)[:, None]
    X = P + t * (Q - P)
    ins = np.ones(len(P), bool)
    for U, W in ((A, B), (B, C), (C, A)):
        e = W - U
        le = np.sqrt(_dot(e, e))
        ins &= _dot(_cross(e, X - U), n) / (nn * le) >= -tol
    return straddle & ins


def _seg_seg_2d(p, q, r, s):
    """Proper crossing of 2-D segments pq and rs (strict)."""
    def orient(a, b, c):
        return (b[:, 0] - a[:, 0]) * (c[:, 1] - a[:, 1]) - (b[:, 1] - a[:, 1]) * (c[:, 0] - a[:, 0])
    o1, o2 = orient(p, q, r), orient(p, q, s)
    o3, o4 = orient(r, s, p), orient(r, s, q)
    return (o1 * o2 < 0) & (o3 * o4 < 0)


def _pt_in_tri_2d(p, a, b, c):
    def orient(a, b, c):
        return (b[:, 0] - a[:, 0]) * (c[:, 1] - a[:, 1]) - (b[:, 1] - a[:, 1]) * (c[:, 0] - a[:, 0])
    o1, o2, o3 = orient(a, b, p), orient(b, c, p), orient(c, a, p)
    return ((o1 > 0) & (o2 > 0) & (o3 > 0)) | ((o1 < 0) & (o2 < 0) & (o3 < 0))


def _coplanar_overlap(TA, TB, n, skip_a=None, skip_b=None):
    """2-D overlap of coplanar triangles (rows of 3x3 arrays) projected along the normal's
    largest axis: a proper edge crossing or a vertex strictly inside the other triangle."""
    ax = np.argmax(np.abs(n), axis=1)
    keep = np.array([[1, 2], [0, 2], [0, 1]])[ax]
    rows = np.arange(len(TA))
    A2 = np.stack([TA[rows, :, keep[:, 0]], TA[rows, :, keep[:, 1]]], axis=2)
    B2 = np.stack([TB[rows, :, keep[:, 0]], TB[rows, :, keep[:, 1]]], axis=2)
    hit = np.zeros(len(TA), bool)
    for i in range(3):
        for j in range(3):
            hit |= _seg_seg_2d(A2[:, i], A2[:, (i + 1) % 3], B2[:, j], B2[:, (j + 1) % 3])
    for i in range(3):
        ok_a = np.ones(len(TA), bool) if skip_a is None else skip_a != i
        ok_b = np.ones(len(TA), bool) if skip_b is None else skip_b != i
        hit |= ok_a & _pt_in_tri_2d(A2[:, i], B2[:, 0], B2[:, 1], B2[:, 2])
        hit |= ok_b & _pt_in_tri_2d(B2[:, i], A2[:, 0], A2[:, 1], A2[:, 2])
    return hit


def _candidate_pairs(V, F):
    """Triangle pairs whose bounding boxes overlap (uniform bucket grid broad phase)."""
    T = V[F]
    lo, hi = T.min(axis=1), T.max(axis=1)
    e = np.linalg.norm(T[:, [1, 2, 0]] - T, axis=2)
    cell = 2.0 * np.median(e)
    origin = lo.min(axis=0)
    ilo = np.floor((lo - origin) / cell).astype(np.int64)
    ihi = np.floor((hi - origin) / cell).astype(np.int64)
    span = ihi - ilo + 1
    cnt = span.prod(axis=1)
    tri = np.repeat(np.arange(len(F)), cnt)
    start = np.repeat(np.cumsum(cnt) - cnt, cnt)
    local = np.arange(cnt.sum()) - start
    sp = span[tri]
    ci = ilo[tri, 0] + local % sp[:, 0]
    cj = ilo[tri, 1] + (local // sp[:, 0]) % sp[:, 1]
    ck = ilo[tri, 2] + local // (sp[:, 0] * sp[:, 1])
    dims = ihi.max(axis=0) + 2
    key = (ci * dims[1] + cj) * dims[2] + ck
    order = np.argsort(key, kind="stable")
    key, tri = key[order], tri[order]
    bounds = np.flatnonzero(np.diff(key)) + 1
    starts = np.concatenate([[0], bounds])
    sizes = np.diff(np.concatenate([starts, [len(key)]]))
    pairs = []
    for s in np.unique(sizes):
        if s < 2:
            continue
        st = starts[sizes == s]
        iu, ju = np.triu_indices(s, 1)
        a = tri[st[:, None] + iu[None, :]].reshape(-1)
        b = tri[st[:, None] + ju[None, :]].reshape(-1)
        pairs.append(np.stack([np.minimum(a, b), np.maximum(a, b)], axis=1))
    if not pairs:
        return np.zeros((0, 2), np.int64)
    P = np.concatenate(pairs)
    P = np.unique(P[:, 0] * len(F) + P[:, 1])
    P = np.stack([P // len(F), P % len(F)], axis=1)
    ov = np.all((lo[P[:, 0]] <= hi[P[:, 1]]) & (lo[P[:, 1]] <= hi[P[:, 0]]), axis=1)
    return P[ov]


def self_intersections(V, F):
    """Pairs of triangles that intersect other than along the edge or vertex they share."""
    P = _candidate_pairs(V, F)
    if len(P) == 0:
        return P
    scale = np.linalg.norm(V.max(axis=0) - V.min(axis=0))
    tol = 1e-12 * scale
    FA, FB = F[P[:, 0]], F[P[:, 1]]
    same = FA[:, :, None] == FB[:, None, :]            # [pair, corner of A, corner of B]
    nshared = same.sum(axis=(1, 2))
    bad = np.zeros(len(P), bool)
    TA, TB = V[FA], V[FB]
    nA = _cross(TA[:, 1] - TA[:, 0], TA[:, 2] - TA[:, 0])
    nB = _cross(TB[:, 1] - TB[:, 0], TB[:, 2] - TB[:, 0])
    lnA = np.sqrt(_dot(nA, nA))
    lnB = np.sqrt(_dot(nB, nB))
    dB = np.einsum("pkj,pj->pk", TB - TA[:, :1], nA) / lnA[:, None]
    dA = np.einsum("pkj,pj->pk", TA - TB[:, :1], nB) / lnB[:, None]
    # disjoint pairs: separated by a plane, coplanar overlap, or an edge through the other
    m = nshared == 0
    sepB = np.all(dB > tol, axis=1) | np.all(dB < -tol, axis=1)
    sepA = np.all(dA > tol, axis=1) | np.all(dA < -tol, axis=1)
    cop = np.all(np.abs(dB) <= tol, axis=1)
    idx = np.flatnonzero(m & ~sepA & ~sepB & ~cop)
    if len(idx):
        A, B = TA[idx], TB[idx]
        hit = np.zeros(len(idx), bool)
        for i in range(3):
            hit |= _seg_crosses_tri(A[:, i], A[:, (i + 1) % 3], B[:, 0], B[:, 1], B[:, 2], tol)
            hit |= _seg_crosses_tri(B[:, i], B[:, (i + 1) % 3], A[:, 0], A[:, 1], A[:, 2], tol)
        bad[idx] = hit
    idx = np.flatnonzero(m & cop)
    if len(idx):
        bad[idx] = _coplanar_overlap(TA[idx], TB[idx], nA[idx])
    # one shared vertex: the opposite edge of either must not cross the other triangle
    idx = np.flatnonzero(nshared == 1)
    if len(idx):
        s = same[idx]
        ka = np.argmax(s.any(axis=2), axis=1)         # shared corner in A
        kb = np.argmax(s.any(axis=1), axis=1)         # shared corner in B
        r = np.arange(len(idx))
        A, B = TA[idx], TB[idx]
        a1, a2 = A[r, (ka + 1) % 3], A[r, (ka + 2) % 3]
        b1, b2 = B[r, (kb + 1) % 3], B[r, (kb + 2) % 3]
        copl = np.all(np.abs(dB[idx]) <= tol, axis=1)
        tolx = -tol
        hit = _seg_crosses_tri(a1, a2, B[:, 0], B[:, 1], B[:, 2], tolx) | \
            _seg_crosses_tri(b1, b2, A[:, 0], A[:, 1], A[:, 2], tolx)
        hit[copl] = _coplanar_overlap(A[copl], B[copl], nA[idx][copl], ka[copl], kb[copl])
        bad[idx] = hit
    # a shared edge: the two faces must not fold onto each other
    idx = np.flatnonzero(nshared == 2)
    if len(idx):
        c = _dot(nA[idx], nB[idx]) / (lnA[idx] * lnB[idx])
        bad[idx] = c < -0.99999
    return P[bad]


def triangulate_polys(polys):
    """Fan triangulation (a, b, c), (a, c, d), ... as the tool reads OBJ polygons."""
    tris = []
    for p in polys:
        for k in range(1, len(p) - 1):
            tris.append((p[0], p[k], p[k + 1]))
    return np.array(tris, dtype=np.int64)


def check_mesh(V, F, name=""):
    """Returns (problems, stats). problems: list of strings, empty when the mesh is valid."""
    V = np.asarray(V, float)
    F = np.asarray(F, np.int64)
    nv, problems = len(V), []
    if np.any((F[:, 0] == F[:, 1]) | (F[:, 1] == F[:, 2]) | (F[:, 0] == F[:, 2])):
        problems.append("face repeats a vertex")
    used = np.zeros(nv, bool)
    used[F.reshape(-1)] = True
    if not used.all():
        problems.append("%d unused vertices" % (~used).sum())
    if len(np.unique(V[used], axis=0)) != used.sum():
        problems.append("duplicate vertex positions")
    E = _edges_of(F)
    key = E[:, 0] * nv + E[:, 1]
    uk, cnt = np.unique(key, return_counts=True)
    if np.any(cnt > 1):
        problems.append("%d directed edges used twice (non-manifold or inconsistent orientation)"
                        % (cnt > 1).sum())
    rev = E[:, 1] * nv + E[:, 0]
    if not np.all(np.isin(rev, uk)):
        problems.append("%d edges without an opposite face (open or inconsistently oriented)"
                        % (~np.isin(rev, uk)).sum())
    if not problems:
        cyc = _vertex_fan_cycles(F, nv)
        if np.any(cyc[used] != 1):
            problems.append("%d non-manifold vertices" % (cyc[used] != 1).sum())
    lab = _components(nv, E)
    ncomp = len(np.unique(lab[used]))
    if ncomp != 1:
        problems.append("%d bodies" % ncomp)
    T = V[F]
    vol = np.einsum("ij,ij->i", T[:, 0], np.cross(T[:, 1], T[:, 2])).sum() / 6.0
    if vol <= 0:
        problems.append("signed volume %.3g <= 0 (inward)" % vol)
    el = np.linalg.norm(T[:, [1, 2, 0]] - T, axis=2)
    area = 0.5 * np.linalg.norm(np.cross(T[:, 1] - T[:, 0], T[:, 2] - T[:, 0]), axis=1)
    ext = V[used].max(axis=0) - V[used].min(axis=0)
    diag = float(np.linalg.norm(ext))
    if area.min() <= 1e-12 * diag * diag:
        problems.append("degenerate face: area %.3g" % area.min())
    lmax = el.max(axis=1)
    aspect = lmax * lmax / (2.0 * np.maximum(area, 1e-300))   # longest edge / its altitude
    if not problems or all(p.startswith("%d bodies" % ncomp) for p in problems):
        si = self_intersections(V, F)
        if len(si):
            problems.append("%d self-intersecting triangle pairs, e.g. faces %d and %d"
                            % (len(si), si[0, 0], si[0, 1]))
    stats = dict(vertices=int(used.sum()), triangles=len(F), extent=ext.tolist(), volume=vol,
                 edge=(float(el.min()), float(np.median(el)), float(el.max())),
                 aspect=(float(aspect.min()), float(np.median(aspect)), float(aspect.max())),
                 min_area_rel=float(area.min() / diag ** 2))
    return problems, stats


# ----------------------------------------------------------------------------------------------
# Writing

def write_obj_polys(path, V, polys, comment, normals=None):
    """OBJ with polygon faces (any size); with `normals` (one per face) as f v//vn."""
    lines = ["# %s" % c for c in comment.split("\n")]
    lines.append("# %d vertices, %d faces; generated by scripts/make_bench_objects.py"
                 % (len(V), len(polys)))
    lines += ["v %.9g %.9g %.9g" % tuple(v) for v in V]
    if normals is None:
        lines += ["f " + " ".join(str(i + 1) for i in p) for p in polys]
    else:
        lines.append("s off")
        lines += ["vn %.4f %.4f %.4f" % tuple(n) for n in normals]
        lines += ["f " + " ".join("%d//%d" % (i + 1, k + 1) for i in p)
                  for k, p in enumerate(polys)]
    with open(path, "w", newline="\n") as f:
        f.write("\n".join(lines) + "\n")


def stl_float32(V, F):
    """The mesh as the tool sees a binary STL of it: float32 corners merged by exact value."""
    T = V[F].astype(np.float32).astype(float).reshape(-1, 3)
    U, inv = np.unique(T, axis=0, return_inverse=True)
    return U, inv.reshape(-1, 3)


def write_stl(path, V, F, header):
    T = V[F].astype(np.float32)
    n = np.cross(T[:, 1] - T[:, 0], T[:, 2] - T[:, 0]).astype(np.float64)
    n /= np.linalg.norm(n, axis=1)[:, None]
    rec = np.zeros(len(F), dtype=np.dtype([("n", "<f4", 3), ("v", "<f4", (3, 3)), ("a", "<u2")]))
    rec["n"] = n
    rec["v"] = T
    with open(path, "wb") as f:
        f.write(header.encode()[:80].ljust(80, b" "))
        f.write(struct.pack("<I", len(F)))
        f.write(rec.tobytes())


def read_mesh(path):
    """Reads OBJ (polygons fan-triangulated) or STL (binary/ASCII, merged by exact value)."""
    if path.lower().endswith(".stl"):
        data = open(path, "rb").read()
        if data[:5] == b"solid" and b"facet" in data[:300]:
            vals = [list(map(float, l.split()[1:4])) for l in data.decode().splitlines()
                    if l.strip().startswith("vertex")]
            T = np.array(vals, float).reshape(-1, 3, 3)
        else:
            n = struct.unpack("<I", data[80:84])[0]
            rec = np.frombuffer(data, dtype=np.dtype([("n", "<f4", 3), ("v", "<f4", (3, 3)),
                                                       ("a", "<u2")]), count=n, offset=84)
            T = rec["v"].astype(float)
        U, inv = np.unique(T.reshape(-1, 3), axis=0, return_inverse=True)
        return U, inv.reshape(-1, 3)
    V, polys = [], []
    for line in open(path):
        w = line.split()
        if not w:
            continue
        if w[0] == "v":
            V.append([float(x) for x in w[1:4]])
        elif w[0] == "f":
            polys.append([int(x.split("/")[0]) - 1 for x in w[1:]])
    return np.array(V), triangulate_polys(polys)


# ----------------------------------------------------------------------------------------------
# Shared geometry helpers

def orient_outward(V, F):
    T = V[F]
    vol = np.einsum("ij,ij->i", T[:, 0], np.cross(T[:, 1], T[:, 2])).sum()
    return F if vol > 0 else F[:, ::-1].copy()


def chord_resample(poly, tol, min_len=0.0):
    """CAD-style sampling of a dense polyline: Douglas-Peucker with a chord tolerance, so
    straight runs get one long segment and curves many short ones (uneven on purpose)."""
    poly = np.asarray(poly, float)
    keep = np.zeros(len(poly), bool)
    keep[0] = keep[-1] = True
    stack = [(0, len(poly) - 1)]
    while stack:
        i, j = stack.pop()
        if j <= i + 1:
            continue
        a, b = poly[i], poly[j]
        d = b - a
        L = np.hypot(*d)
        seg = poly[i + 1:j] - a
        dist = np.abs(seg[:, 0] * d[1] - seg[:, 1] * d[0]) / max(L, 1e-300)
        k = int(np.argmax(dist))
        if dist[k] > tol:
            keep[i + 1 + k] = True
            stack += [(i, i + 1 + k), (i + 1 + k, j)]
    return poly[keep]


def triangulate_polygon(P):
    """Triangulates a simple polygon (n x 2, counter-clockwise; collinear vertices allowed)
    using its vertices only, as CAD exporters do for a planar face: no interior points, so a
    long thin face gives fans and long slivers. Among such triangulations it takes the one whose
    most slender triangle is least slender (dynamic programming over valid diagonals, O(n^3);
    greedy ear clipping made needless 1:1000+ slivers next to arcs). Returns index triples."""
    P = np.asarray(P, float)
    n = len(P)
    size = float(np.ptp(P, axis=0).max())
    eps = 1e-13 * size ** 2
    E0, E1 = P, np.roll(P, -1, axis=0)
    ok = np.zeros((n, n), bool)
    for i in range(n):
        for j in range(i + 2, n):
            if i == 0 and j == n - 1:
                continue
            a, b = P[i], P[j]
            d = b - a
            # no vertex but i, j on the closed segment
            w = P - a
            cr = d[0] * w[:, 1] - d[1] * w[:, 0]
            t = (w @ d) / (d @ d)
            on = (np.abs(cr) <= 1e-9 * size * np.sqrt(d @ d)) & (t >= -1e-12) & (t <= 1 + 1e-12)
            on[[i, j]] = False
            if on.any():
                continue
            # no proper crossing with an edge not at i or j
            o1 = d[0] * (E0[:, 1] - a[1]) - d[1] * (E0[:, 0] - a[0])
            o2 = d[0] * (E1[:, 1] - a[1]) - d[1] * (E1[:, 0] - a[0])
            e = E1 - E0
            o3 = e[:, 0] * (a[1] - E0[:, 1]) - e[:, 1] * (a[0] - E0[:, 0])
            o4 = e[:, 0] * (b[1] - E0[:, 1]) - e[:, 1] * (b[0] - E0[:, 0])
            cross = (o1 * o2 < 0) & (o3 * o4 < 0)
            cross[[i, (i - 1) % n, j, (j - 1) % n]] = False
            if cross.any():
                continue
            # inside: the midpoint (even-odd rule)
            m = (a + b) / 2
            yi, yj = E0[:, 1], E1[:, 1]
            sel = (yi > m[1]) != (yj > m[1])
            xs = E0[sel, 0] + (m[1] - yi[sel]) * (E1[sel, 0] - E0[sel, 0]) / (yj[sel] - yi[sel])
            ok[i, j] = ok[j, i] = np.count_nonzero(xs > m[0]) % 2 == 1
    for i in range(n):
        ok[i, (i + 1) % n] = ok[(i + 1) % n, i] = True
    X, Y = P[:, 0].tolist(), P[:, 1].tolist()

    def aspect(a, b, c):
        ar = (X[b] - X[a]) * (Y[c] - Y[a]) - (Y[b] - Y[a]) * (X[c] - X[a])
        if ar <= eps:
            return math.inf
        return max((X[a] - X[b]) ** 2 + (Y[a] - Y[b]) ** 2, (X[c] - X[b]) ** 2 + (Y[c] - Y[b]) ** 2,
                   (X[a] - X[c]) ** 2 + (Y[a] - Y[c]) ** 2) / ar

    okl = ok.tolist()
    cost = [[math.inf] * n for _ in range(n)]
    arg = [[-1] * n for _ in range(n)]
    for i in range(n - 1):
        cost[i][i + 1] = 0.0
    for gap in range(2, n):
        for i in range(0, n - gap):
            j = i + gap
            if not okl[i][j]:
                continue
            best, bk = math.inf, -1
            ci, row = cost[i], okl[i]
            for k in range(i + 1, j):
                if row[k] and okl[k][j]:
                    c = max(ci[k], cost[k][j])
                    if c < best:
                        c = max(c, aspect(i, k, j))
                        if c < best:
                            best, bk = c, k
            cost[i][j], arg[i][j] = best, bk
    if arg[0][n - 1] < 0:
        raise RuntimeError("polygon triangulation failed (polygon not simple?)")
    tris, stack = [], [(0, n - 1)]
    while stack:
        i, j = stack.pop()
        if j - i < 2:
            continue
        k = arg[i][j]
        tris.append((i, k, j))
        stack += [(i, k), (k, j)]
    return tris


def revolve_profile(prof, nseg, phase=0.0):
    """Surface of revolution about z of a closed (r, z) loop. Points with r == 0 are poles
    (one vertex, triangle fans). Returns V, list of faces (quads as 4-tuples), consistently
    oriented (the caller orients outward)."""
    V, ring = [], []
    ang = phase + 2 * np.pi * np.arange(nseg) / nseg
    for r, z in prof:
        if r == 0.0:
            ring.append([len(V)] * nseg)
            V.append((0.0, 0.0, z))
        else:
            ring.append(list(range(len(V), len(V) + nseg)))
            V += list(zip(r * np.cos(ang), r * np.sin(ang), np.full(nseg, z)))
    polys = []
    for i in range(len(prof)):
        a, b = ring[i], ring[(i + 1) % len(prof)]
        if prof[i][0] == 0.0 and prof[(i + 1) % len(prof)][0] == 0.0:
            continue  # the axis itself
        for j in range(nseg):
            j1 = (j + 1) % nseg
            q = [a[j], a[j1], b[j1], b[j]]
            if a[j] == a[j1]:
                polys.append((a[j], b[j1], b[j]))
            elif b[j] == b[j1]:
                polys.append((a[j], a[j1], b[j]))
            else:
                polys.append(tuple(q))
    return np.array(V, float), polys


def quads_to_tris(polys, alternate=False):
    """Quads into two triangles (first diagonal, or alternating diagonals)."""
    out = []
    for k, p in enumerate(polys):
        if len(p) == 3:
            out.append(p)
        elif alternate and k % 2:
            out += [(p[1], p[2], p[3]), (p[1], p[3], p[0])]
        else:
            out += [(p[0], p[1], p[2]), (p[0], p[2], p[3])]
    return np.array(out, dtype=np.int64)


# ----------------------------------------------------------------------------------------------
# statue: marching tetrahedra of a lumpy signed distance field

def _sd_capsule(X, a, b, r):
    a, b = np.asarray(a, float), np.asarray(b, float)
    ab = b - a
    t = np.clip((X - a) @ ab / (ab @ ab), 0, 1)
    return np.linalg.norm(X - (a + t[:, None] * ab), axis=1) - r


def _sd_ellipsoid(X, c, r):
    q = (X - np.asarray(c, float)) / np.asarray(r, float)
    k = np.linalg.norm(q, axis=1)
    return (k - 1.0) * min(r)


def _sd_roundbox(X, c, h, rr):
    q = np.abs(X - np.asarray(c, float)) - (np.asarray(h, float) - rr)
    return np.linalg.norm(np.maximum(q, 0), axis=1) + np.minimum(q.max(axis=1), 0) - rr


def _smin(a, b, k):
    h = np.maximum(k - np.abs(a - b), 0) / k
    return np.minimum(a, b) - h * h * k * 0.25


def _statue_sdf(X):
    d = _sd_roundbox(X, (0, 0, 0.035), (0.17, 0.14, 0.035), 0.012)           # plinth
    parts = [
        (_sd_capsule(X, (0.075, 0.0, 0.07), (0.07, 0.01, 0.47), 0.052), 0.03),   # legs
        (_sd_capsule(X, (-0.075, 0.02, 0.07), (-0.07, -0.02, 0.47), 0.052), 0.03),
        (_sd_ellipsoid(X, (0, 0, 0.50), (0.15, 0.095, 0.09)), 0.04),           # pelvis
        (_sd_ellipsoid(X, (0, 0.005, 0.65), (0.15, 0.095, 0.17)), 0.05),       # torso
        (_sd_capsule(X, (0, 0, 0.78), (0, -0.005, 0.86), 0.042), 0.02),        # neck
        (_sd_ellipsoid(X, (0, -0.012, 0.905), (0.075, 0.085, 0.095)), 0.02),   # head
        # left arm, hand on the hip (a loop: the body has genus 1 there)
        (_sd_capsule(X, (0.14, 0.0, 0.77), (0.265, 0.03, 0.625), 0.030), 0.025),
        (_sd_capsule(X, (0.265, 0.03, 0.625), (0.155, -0.02, 0.515), 0.026), 0.012),
        # right arm raised, free-standing forearm and a fist
        (_sd_capsule(X, (-0.14, 0.0, 0.76), (-0.27, 0.01, 0.83), 0.029), 0.025),
        (_sd_capsule(X, (-0.27, 0.01, 0.83), (-0.255, -0.03, 0.955), 0.024), 0.012),
        (_sd_ellipsoid(X, (-0.253, -0.035, 0.975), (0.028, 0.03, 0.035)), 0.012),
    ]
    for p, k in parts:
        d = _smin(d, p, k)
    # lumps (drapery, musculature) and fine scan-like ripples of ~0.3 mm
    rng = np.random.default_rng(7)
    for amp, lam, n in ((0.004, 0.12, 6), (0.0015, 0.04, 8), (0.00012, 0.012, 10)):
        dirs = rng.normal(size=(n, 3))
        dirs /= np.linalg.norm(dirs, axis=1)[:, None]
        ph = rng.uniform(0, 2 * np.pi, n)
        lams = lam * rng.uniform(0.7, 1.3, n)
        d = d + amp / math.sqrt(n) * np.sin(2 * np.pi * (X @ dirs.T) / lams + ph).sum(axis=1)
    return d


def marching_tets(P, f, clamp=0.02):
    """Zero level set of f sampled on the nodes P (nx, ny, nz, 3) of a structured lattice, each
    cube split into 6 tetrahedra (Kuhn), edge points interpolated (t clamped to [clamp,
    1-clamp], so no triangle is infinitesimal). Outward = towards f > 0. Returns V, F."""
    nx, ny, nz = f.shape
    f = np.where(f == 0, 1e-12, f)
    Pf = P.reshape(-1, 3)
    ff = f.reshape(-1)
    idx = np.arange(nx * ny * nz).reshape(nx, ny, nz)
    c = idx[:-1, :-1, :-1].reshape(-1)
    off = {(i, j, k): idx[i, j, k] - idx[0, 0, 0] for i in (0, 1) for j in (0, 1) for k in (0, 1)}
    # only cubes that the surface crosses
    corners = np.stack([c + o for o in off.values()], axis=1)
    s = ff[corners] < 0
    c = c[s.any(axis=1) & ~s.all(axis=1)]
    tets = []
    for perm in ((0, 1, 2), (0, 2, 1), (1, 0, 2), (1, 2, 0), (2, 0, 1), (2, 1, 0)):
        v = [0, 0, 0]
        chain = [off[tuple(v)]]
        for ax in perm:
            v[ax] = 1
            chain.append(off[tuple(v)])
        tets.append(np.stack([c + o for o in chain], axis=1))
    T = np.concatenate(tets)
    inside = ff[T] < 0
    code = (inside * np.array([1, 2, 4, 8])).sum(axis=1)
    T, inside, code = T[(code > 0) & (code < 15)], inside[(code > 0) & (code < 15)], \
        code[(code > 0) & (code < 15)]
    # each triangle as the lattice edges (node a, node b) its corners lie on, and whether its
    # orientation must be flipped to face f > 0. The orientation is decided combinatorially,
    # from the sign of a tetrahedron volume on the lattice (as the exact level set at t = 1/2
    # would be oriented), so clamped or nearly degenerate triangles cannot come out flipped.
    Pf_ = Pf

    def det(o, a, b, c):
        return _dot(Pf_[a] - Pf_[o], np.cross(Pf_[b] - Pf_[o], Pf_[c] - Pf_[o]))

    groups = []
    ninside = inside.sum(axis=1)
    for lone_in in (True, False):    # one node separated (1 in or 3 in): one triangle
        m = ninside == (1 if lone_in else 3)
        Tm, Im = T[m], inside[m]
        lone = np.argmax(Im if lone_in else ~Im, axis=1)
        others = np.array([[1, 2, 3], [0, 2, 3], [0, 1, 3], [0, 1, 2]])[lone]
        r = np.arange(len(Tm))
        a = Tm[r, lone]
        o = Tm[r[:, None], others]
        d = det(a, o[:, 0], o[:, 1], o[:, 2])
        groups.append((np.stack([a, a, a], 1), o, (d < 0) if lone_in else (d > 0)))
    m = ninside == 2                 # two and two: a quad, split into two triangles
    Tm, Im = T[m], inside[m]
    order = np.argsort(~Im, axis=1, kind="stable")            # the 2 inside nodes first
    i0, i1, o0, o1 = (Tm[np.arange(len(Tm)), order[:, k]] for k in range(4))
    q = [(i0, o0), (i0, o1), (i1, o1), (i1, o0)]              # a cycle around the quad
    flip = det(i0, o0, o1, i1) < 0
    for tri in ((0, 1, 2), (0, 2, 3)):
        groups.append((np.stack([q[k][0] for k in tri], 1), np.stack([q[k][1] for k in tri], 1), flip))
    A = np.concatenate([g[0] for g in groups])
    B = np.concatenate([g[1] for g in groups])
    flip = np.concatenate([g[2] for g in groups])
    n = len(ff)
    key = np.minimum(A, B).astype(np.int64) * n + np.maximum(A, B)
    uk, inv = np.unique(key.reshape(-1), return_inverse=True)
    ea, eb = uk // n, uk % n
    t = np.clip(ff[ea] / (ff[ea] - ff[eb]), clamp, 1 - clamp)
    V = Pf[ea] + t[:, None] * (Pf[eb] - Pf[ea])
    F = inv.reshape(-1, 3)
    F[flip] = F[flip][:, ::-1]
    return V, F


def _vertex_normals(V, F):
    n = np.cross(V[F[:, 1]] - V[F[:, 0]], V[F[:, 2]] - V[F[:, 0]])
    vn = np.zeros_like(V)
    for k in range(3):
        np.add.at(vn, F[:, k], n)
    return vn / np.linalg.norm(vn, axis=1)[:, None]


def statue(h=0.0181):
    rng = np.random.default_rng(20261127)
    lo, hi = np.array([-0.36, -0.22, -0.04]), np.array([0.30, 0.22, 1.06])
    # a rotated lattice (about every axis) whose spacing is warped smoothly along each axis
    # (local spacing 0.55-1.45 h) and jittered: the marching tetrahedra then give no grid
    # pattern and triangle sizes that vary ~3x over the figure
    ang = (0.5, 0.35, 0.8)
    Rx = np.array([[1, 0, 0], [0, math.cos(ang[0]), -math.sin(ang[0])], [0, math.sin(ang[0]), math.cos(ang[0])]])
    Ry = np.array([[math.cos(ang[1]), 0, math.sin(ang[1])], [0, 1, 0], [-math.sin(ang[1]), 0, math.cos(ang[1])]])
    Rz = np.array([[math.cos(ang[2]), -math.sin(ang[2]), 0], [math.sin(ang[2]), math.cos(ang[2]), 0], [0, 0, 1]])
    Rot = Rz @ Ry @ Rx
    corners = np.array([[x, y, z] for x in (lo[0], hi[0]) for y in (lo[1], hi[1]) for z in (lo[2], hi[2])])
    size = 2 * np.abs((corners - (lo + hi) / 2) @ Rot).max(axis=0) + 4 * h
    n = np.ceil(size / h).astype(int) + 1
    axes = []
    for k in range(3):
        i = np.arange(n[k], dtype=float)
        period = rng.uniform(11, 17)
        a = 0.45 * period / (2 * np.pi)
        axes.append(-size[k] / 2 + h * (i + a * np.sin(2 * np.pi * i / period + rng.uniform(0, 6))))
    G = np.stack(np.meshgrid(*axes, indexing="ij"), axis=-1)
    G += rng.uniform(-0.05, 0.05, G.shape) * h
    G = G @ Rot.T + (lo + hi) / 2
    f = _statue_sdf(G.reshape(-1, 3)).reshape(G.shape[:3])
    V, F = marching_tets(G, f)
    # per-vertex scan noise along the normal, ~0.3 mm, bounded by the local edge length so it
    # cannot fold the small triangles
    e = np.linalg.norm(V[F[:, [1, 2, 0]]] - V[F], axis=2)
    emin = np.full(len(V), np.inf)
    for k in range(3):
        np.minimum.at(emin, F[:, k], np.minimum(e[:, k], e[:, (k + 2) % 3]))
    amp = np.minimum(0.0003, 0.15 * emin)
    V = V + _vertex_normals(V, F) * (np.clip(rng.normal(0, 0.6, len(V)), -1, 1) * amp)[:, None]
    V[:, 2] -= V[:, 2].min()
    return V, F


# ----------------------------------------------------------------------------------------------
# bell: a CAD revolve

def bell_profile():
    """Closed (r, z) loop in metres: outer pole on the crown's boss, outer surface down to the
    lip, the lip, the inner surface up to the inner pole. Dense, then chord-sampled."""
    H, R = 0.62, 0.42                       # body height (without the boss), lip radius
    s = np.linspace(0, 1, 2000)             # 0 at the lip, 1 at the shoulder
    z = 0.012 + (H - 0.035 - 0.012) * s
    ro = 0.215 + 0.205 * (1 - s) ** 2.4 + 0.012 * np.sin(np.pi * s) ** 2
    t = 0.016 + 0.034 * np.exp(-((s - 0.06) / 0.09) ** 2) + 0.006 * s ** 4   # horizontal wall
    ri = ro - t
    # outer: boss top (pole) -> boss side -> crown -> shoulder arc -> wall -> lip corner
    outer = [(0.0, H + 0.08), (0.055, H + 0.08)]
    outer += [(0.055 + 0.008 - 0.008 * math.cos(a), H + 0.008 - 0.008 * math.sin(a))
              for a in np.linspace(0, np.pi / 2, 12)][::-1][:0]  # (sharp boss edge)
    outer += [(0.055, H + 0.0005)]
    cr = 0.035                               # shoulder round
    c = (ro[-1] - cr, H - cr)
    outer += [(c[0] + cr * math.sin(a), c[1] + cr * math.cos(a)) for a in np.linspace(0, np.pi / 2, 200)]
    outer += list(zip(ro[::-1], z[::-1]))
    outer += [(R + 0.004 * math.sin(a), 0.012 * (1 - a / (np.pi / 2)) ** 1.0 * 0 + 0.012 - 0.012 * math.sin(a))
              for a in np.linspace(0, np.pi / 2, 60)]
    # lip: the bevel from the outer corner in to the inner wall
    lip = [(R + 0.004 - 0.012 * u, 0.0005 * math.sin(np.pi * u)) for u in np.linspace(0, 1, 30)]
    lip += [(R + 0.004 - 0.012 - (R + 0.004 - 0.012 - ri[0]) * u, 0.012 * u ** 1.5)
            for u in np.linspace(0, 1, 60)]
    # inner crown: the inner wall up to where a round turns it into the underside of the
    # crown, then flat (slightly domed) to the pole. (The wall once ran on above the round's
    # start and folded back down to it: a zero-thickness fin 4 cm high around the crown.)
    zc = H - 0.045
    top = z <= zc - 0.03
    inner = list(zip(ri[top], z[top]))
    ci = (ri[top][-1] - 0.03, zc - 0.03)
    inner += [(ci[0] + 0.03 * math.cos(a), ci[1] + 0.03 * math.sin(a)) for a in np.linspace(0, np.pi / 2, 120)]
    inner += [(r, zc + 0.006 * (1 - (r / ci[0]) ** 2)) for r in np.linspace(ci[0], 0, 300)]
    dense = [outer[0]] + outer[1:] + lip[1:] + inner[1:]
    prof = []
    for p in dense:                           # drop repeats
        if not prof or math.hypot(p[0] - prof[-1][0], p[1] - prof[-1][1]) > 1e-9:
            prof.append(p)
    # CAD sampling: chord tolerance 0.45 mm over the curved parts, the two straight boss lines
    # kept as they are
    head = prof[:3]
    body = chord_resample(prof[2:], 0.0009)
    out = [tuple(p) for p in head[:2]] + [tuple(p) for p in body]
    out[-1] = (0.0, out[-1][1])
    return out


def bell(nseg=360):
    prof = bell_profile()
    V, polys = revolve_profile(prof, nseg)
    F = orient_outward(V, quads_to_tris(polys))
    return V, F


# ----------------------------------------------------------------------------------------------
# bracket: CAD L-bracket, planar faces triangulated like an exporter

def _rect_with_hole(C, c, rim):
    """Triangles (as point index triples into C (4 corners, ids 0-3) + rim (ids 4..)) covering a
    convex quadrilateral C (4 x 2, CCW) minus the disc (c, R) whose boundary is `rim` (n x 2,
    CCW): each rim edge fans to the corner of the side it faces; one triangle per side joins
    the side's two corners to a rim point (long slivers, as CAD exporters make)."""
    n = len(rim)
    phi = np.arctan2(C[:, 1] - c[1], C[:, 0] - c[0])
    mid = (rim + np.roll(rim, -1, axis=0)) / 2
    th = np.arctan2(mid[:, 1] - c[1], mid[:, 0] - c[0])
    side = np.zeros(n, int)
    for k in range(4):
        a, b = phi[k], phi[(k + 1) % 4]
        rel = (th - a) % (2 * np.pi)
        side[rel < (b - a) % (2 * np.pi)] = k
    tris = []
    for k in range(4):
        es = np.flatnonzero(side == k)
        # rim edges of side k in CCW order (the run may wrap around index 0)
        if len(es) == 0:
            raise RuntimeError("hole too large for its face")
        if es[0] == 0 and es[-1] == n - 1 and len(es) < n:
            brk = np.flatnonzero(np.diff(es) > 1)
            if len(brk):
                es = np.concatenate([es[brk[0] + 1:], es[:brk[0] + 1]])
        h = len(es) // 2
        for j, e in enumerate(es):
            corner = k if j < h else (k + 1) % 4
            tris.append((corner, 4 + (e + 1) % n, 4 + e))
        tris.append((k, (k + 1) % 4, 4 + es[h]))
    return tris


class _Builder:
    def __init__(self):
        self.V, self.index, self.F = [], {}, []

    def vid(self, p):
        key = tuple(round(x, 12) for x in p)
        if key not in self.index:
            self.index[key] = len(self.V)
            self.V.append(tuple(p))
        return self.index[key]

    def add(self, pts3, tris, outward):
        """Adds triangles (triples into pts3) of one planar face, oriented along `outward`."""
        ids = [self.vid(p) for p in pts3]
        P = np.asarray(pts3, float)
        for a, b, c in tris:
            n = np.cross(P[b] - P[a], P[c] - P[a])
            if np.dot(n, outward) < 0:
                b, c = c, b
            self.F.append((ids[a], ids[b], ids[c]))

    def mesh(self):
        return np.array(self.V, float), np.array(self.F, dtype=np.int64)


def bracket(nh=344, nfil=16, nround=22):
    L, H, W, T = 0.20, 0.15, 0.06, 0.012
    ri, ro = 0.012, 0.024                   # inner fillet, outer round
    Rh, ch = 0.009, 0.001                   # 18 mm bores, 1 mm chamfers
    base_holes = [0.065, 0.115, 0.165]      # x of the holes through the base (axis z)
    up_holes = [0.065, 0.115]               # z of the holes through the upright (axis x)
    cuts_base = [0.04, 0.09, 0.14, 0.19]    # face split lines around the holes
    cuts_up = [0.04, 0.09, 0.14]
    # the L profile in (x, z), counter-clockwise, with the split points on its straight edges
    prof = [(ro, 0.0)] + [(x, 0.0) for x in cuts_base] + [(L, 0.0), (L, T)]
    prof += [(x, T) for x in cuts_base[::-1]]
    prof += [(T + ri - ri * math.sin(a), T + ri - ri * math.cos(a)) for a in np.linspace(0, np.pi / 2, nfil + 1)]
    prof += [(T, z) for z in cuts_up] + [(T, H), (0.0, H)] + [(0.0, z) for z in cuts_up[::-1]]
    prof += [(ro - ro * math.cos(a), ro - ro * math.sin(a)) for a in np.linspace(0, np.pi / 2, nround + 1)][:-1]
    prof = np.array(prof)
    area = 0.5 * np.sum(prof[:, 0] * np.roll(prof[:, 1], -1) - np.roll(prof[:, 0], -1) * prof[:, 1])
    assert area > 0
    b = _Builder()
    tri_side = triangulate_polygon(prof)
    for y, s in ((0.0, -1.0), (W, 1.0)):
        b.add([(x, y, z) for x, z in prof], tri_side, (0, s, 0))
    ang = 2 * np.pi * (np.arange(nh) + 0.5) / nh
    rim2 = np.stack([(Rh + ch) * np.cos(ang), (Rh + ch) * np.sin(ang)], axis=1)
    m = len(prof)
    for k in range(m):
        p, q = prof[k], prof[(k + 1) % m]
        d = q - p
        out = np.array([d[1], 0.0, -d[0]])           # right of the CCW edge in (x, z)
        out /= np.linalg.norm(out)
        quad3 = [(p[0], 0.0, p[1]), (q[0], 0.0, q[1]), (q[0], W, q[1]), (p[0], W, p[1])]
        hole = None
        if abs(d[1]) < 1e-15:                         # horizontal strip: base bottom or top
            for xc in base_holes:
                if min(p[0], q[0]) < xc < max(p[0], q[0]):
                    hole = ("z", xc)
        elif abs(d[0]) < 1e-15 and p[0] in (0.0, T):  # vertical strip: upright outer or inner
            for zc in up_holes:
                if min(p[1], q[1]) < zc < max(p[1], q[1]):
                    hole = ("x", zc)
        if hole is None:
            b.add(quad3, [(0, 1, 2), (0, 2, 3)], out)
            continue
        if hole[0] == "z":   # face coordinates (x, y)
            C = np.array([[p[0], 0.0], [q[0], 0.0], [q[0], W], [p[0], W]])
            c = np.array([hole[1], W / 2])
            rim = c + rim2
            pts = [(u, v, p[1]) for u, v in np.vstack([C, rim])]
        else:                # face coordinates (z, y)
            C = np.array([[p[1], 0.0], [q[1], 0.0], [q[1], W], [p[1], W]])
            c = np.array([hole[1], W / 2])
            rim = c + rim2
            pts = [(p[0], v, u) for u, v in np.vstack([C, rim])]
        if (C[1, 0] - C[0, 0]) * (C[2, 1] - C[1, 1]) < 0:
            C = C[[1, 0, 3, 2]]
            pts = [pts[i] for i in (1, 0, 3, 2)] + pts[4:]
        b.add(pts, _rect_with_hole(C, c, rim), out)
    # hole walls: a 45 degree chamfer at each face, then the bore; quads between consecutive
    # rings, two triangles each, facing the axis
    rings = [(0.0, Rh + ch), (ch, Rh), (T - ch, Rh), (T, Rh + ch)]
    unit = np.stack([np.cos(ang), np.sin(ang)], axis=1)
    for axis, centres in (("z", base_holes), ("x", up_holes)):
        for cc in centres:
            R3 = []
            for depth, r in rings:
                if axis == "z":
                    R3.append([(cc + r * u, W / 2 + r * v, depth) for u, v in unit])
                else:
                    R3.append([(depth, W / 2 + r * v, cc + r * u) for u, v in unit])
            axis_pt = np.array([cc, W / 2, 0.0]) if axis == "z" else np.array([0.0, W / 2, cc])
            for P0, P1 in zip(R3[:-1], R3[1:]):
                for jj in range(nh):
                    j1 = (jj + 1) % nh
                    q = np.array(P0[jj])
                    inward = axis_pt - q
                    inward[2 if axis == "z" else 0] = 0.0
                    b.add([P0[jj], P0[j1], P1[j1], P1[jj]], [(0, 1, 2), (0, 2, 3)], inward)
    return b.mesh()


# ----------------------------------------------------------------------------------------------
# knot: a trefoil tube in millimetres

def _trefoil(t):
    return np.stack([np.sin(t) + 2 * np.sin(2 * t), np.cos(t) - 2 * np.cos(2 * t), -np.sin(3 * t)], axis=1)


def knot_mm(n_around=40, n_along=312, r=8.0, scale=15.5):
    rng = np.random.default_rng(3)
    dt = rng.uniform(0.6, 1.4, n_along)
    t = np.concatenate([[0], np.cumsum(dt)[:-1]]) / dt.sum() * 2 * np.pi
    C = _trefoil(t) * scale
    Tg = np.roll(C, -1, axis=0) - np.roll(C, 1, axis=0)
    Tg /= np.linalg.norm(Tg, axis=1)[:, None]
    # rotation-minimising frame, then the closing twist spread along the tube
    N = np.zeros_like(C)
    n0 = np.cross(Tg[0], [0, 0, 1.0])
    N[0] = n0 / np.linalg.norm(n0)
    for i in range(1, n_along):
        v = N[i - 1] - np.dot(N[i - 1], Tg[i]) * Tg[i]
        N[i] = v / np.linalg.norm(v)
    v = N[-1] - np.dot(N[-1], Tg[0]) * Tg[0]
    v /= np.linalg.norm(v)
    Bz = np.cross(Tg[0], N[0])
    twist = math.atan2(np.dot(v, Bz), np.dot(v, N[0]))
    B = np.cross(Tg, N)
    V = []
    for i in range(n_along):
        a0 = -twist * i / n_along + rng.uniform(-0.3, 0.3) * 2 * np.pi / n_around
        da = rng.uniform(0.75, 1.25, n_around)
        a = a0 + 2 * np.pi * np.concatenate([[0], np.cumsum(da)[:-1]]) / da.sum()
        rr = r * (1 + 0.004 * rng.normal(size=n_around))
        V.append(C[i] + rr[:, None] * (np.cos(a)[:, None] * N[i] + np.sin(a)[:, None] * B[i]))
    V = np.concatenate(V)
    F = []
    for i in range(n_along):
        i1 = (i + 1) % n_along
        for j in range(n_around):
            j1 = (j + 1) % n_around
            a, b_, c, d = i * n_around + j, i * n_around + j1, i1 * n_around + j1, i1 * n_around + j
            F += [(a, b_, c), (a, c, d)] if (i + j) % 3 else [(a, b_, d), (b_, c, d)]
    F = orient_outward(V, np.array(F, dtype=np.int64))
    V -= (V.max(axis=0) + V.min(axis=0)) / 2
    return V, F


# ----------------------------------------------------------------------------------------------
# sword: a quad-dominant loft

def _section(kind, prm, npts=1200):
    """Dense closed convex section (x across the blade, y through it), CCW from (+x, 0)."""
    u = np.linspace(0, 2 * np.pi, npts, endpoint=False)
    if kind == "ellipse":
        a, b = prm
        return np.stack([a * np.cos(u), b * np.sin(u)], 1)
    if kind == "rrect":
        a, b, rc = prm
        # superellipse as a smooth rounded rectangle
        p = 2.0 / max(2.0, 0.35 * min(a, b) / max(rc, 1e-9) * 4)
        return np.stack([a * np.sign(np.cos(u)) * np.abs(np.cos(u)) ** p,
                         b * np.sign(np.sin(u)) * np.abs(np.sin(u)) ** p], 1)
    if kind == "blade":
        a, b, e = prm   # half width, half thickness at the ridge, half thickness at the edge
        x = np.linspace(a, -a, npts // 2 + 1)
        y = e + (b - e) * (1 - np.abs(x / a) ** 1.5)
        top = np.stack([x, y], 1)
        bot = np.stack([-x, -y], 1)
        pts = np.vstack([[[a, 0.0]], top, [[-a, 0.0]], bot])
        return pts
    raise ValueError(kind)


def _resample_closed(P, s):
    """Points at arc-length fractions s (0 at P[0]) of the closed polyline P."""
    Q = np.vstack([P, P[:1]])
    seg = np.linalg.norm(np.diff(Q, axis=0), axis=1)
    cum = np.concatenate([[0], np.cumsum(seg)]) / seg.sum()
    return np.stack([np.interp(s, cum, Q[:, 0]), np.interp(s, cum, Q[:, 1])], 1)


def sword(m=64):
    rng = np.random.default_rng(11)
    u = np.arange(m) / m
    # arc-length fractions of the ring points: dense at the blade's edges (x extremes); the
    # hilt's rings are spread more evenly, only the same parameter u joins them
    s_blade = u - 0.93 / (4 * np.pi) * np.sin(4 * np.pi * u)
    s_hilt = u - 0.5 / (4 * np.pi) * np.sin(4 * np.pi * u)
    rings = []   # (z, kind, params)
    for ph in np.linspace(15, 160, 11):                   # pommel: a sphere, 25 mm radius
        a = math.radians(ph)
        rings.append((0.028 - 0.025 * math.cos(a), "ellipse", (0.025 * math.sin(a), 0.023 * math.sin(a))))
    for z in np.arange(0.056, 0.186, 0.0075):             # grip with wrap ridges
        rr = 0.0145 + 0.0006 * math.cos(2 * np.pi * z / 0.01)
        rings.append((z, "ellipse", (rr, 0.9 * rr)))
    rings.append((0.1885, "ellipse", (0.018, 0.015)))
    rings += [(0.192, "rrect", (0.105, 0.011, 0.006)), (0.194, "rrect", (0.11, 0.012, 0.008)),
              (0.201, "rrect", (0.111, 0.0125, 0.008)), (0.209, "rrect", (0.11, 0.012, 0.008)),
              (0.211, "rrect", (0.105, 0.011, 0.006)), (0.2135, "rrect", (0.027, 0.0065, 0.003))]
    zb = np.concatenate([np.arange(0.218, 0.80, 0.0062), np.linspace(0.80, 0.864, 12)])
    zb = np.insert(zb, 40, zb[40] - 0.00015)              # a scan seam: two rings 0.15 mm apart
    for z in zb:
        t = (z - 0.218) / (0.80 - 0.218)
        if z <= 0.80:
            a = 0.025 - 0.004 * t
            bb = 0.00225 - 0.0004 * t
        else:
            w = (z - 0.80) / (0.866 - 0.80)
            a = 0.021 * (1 - w ** 0.8) + 0.003 * w
            bb = 0.00185 * (1 - w) + 0.00085 * w
        rings.append((z, "blade", (a, bb, 0.00075)))
    zs = np.array([r[0] for r in rings])
    assert np.all(np.diff(zs) > 0)
    V = [(0.0, 0.0, 0.0015)]
    # smooth scan noise: in-plane displacement along the section normal, ~0.15 mm
    kn = [(rng.uniform(0.008, 0.03), rng.integers(2, 9), rng.uniform(0, 6.3)) for _ in range(6)]
    for z, kind, prm in rings:
        P = _resample_closed(_section(kind, prm), s_blade if kind == "blade" else s_hilt)
        tng = np.roll(P, -1, axis=0) - np.roll(P, 1, axis=0)
        nrm = np.stack([tng[:, 1], -tng[:, 0]], 1)
        nrm /= np.linalg.norm(nrm, axis=1)[:, None]
        d = sum(0.00006 * np.sin(2 * np.pi * (z / lz + k * u) + ph) for lz, k, ph in kn)
        lim = 0.2 * min(prm[1], 0.01)
        P = P + nrm * np.clip(d, -lim, lim)[:, None]
        zz = z + 0.00004 * np.sin(2 * np.pi * u * 3 + 10 * z) if kind != "blade" else z
        V += [(x, y, zq) for (x, y), zq in zip(P, np.broadcast_to(zz, (m,)))]
    V.append((0.0, 0.0, 0.8665))
    V = np.array(V)
    nr = len(rings)
    polys = [(0, 1 + (j + 1) % m, 1 + j) for j in range(m)]
    for i in range(nr - 1):
        for j in range(m):
            j1 = (j + 1) % m
            a, b_, c, d = 1 + i * m + j, 1 + i * m + j1, 1 + (i + 1) * m + j1, 1 + (i + 1) * m + j
            if rng.random() < 0.04:      # some quads came out as two triangles
                polys += [(a, b_, d), (b_, c, d)]
            else:
                polys.append((a, b_, c, d))
    top = len(V) - 1
    polys += [(1 + (nr - 1) * m + j, 1 + (nr - 1) * m + (j + 1) % m, top) for j in range(m)]
    F = triangulate_polys(polys)
    if signed_volume_np(V, F) < 0:
        polys = [p[::-1] for p in polys]
    return V, polys


def signed_volume_np(V, F):
    T = V[F]
    return np.einsum("ij,ij->i", T[:, 0], np.cross(T[:, 1], T[:, 2])).sum() / 6.0


# ----------------------------------------------------------------------------------------------
# tuning fork: a CAD extrusion in millimetres

def fork_mm(narc=32):
    w, g, th = 5.0, 10.0, 5.0                 # prong width, gap, thickness (extrusion)
    Lp, stem_w, stem_L = 120.0, 6.0, 65.0
    ri, ro = g / 2, g / 2 + w
    zj = -math.sqrt(ro * ro - (stem_w / 2) ** 2)
    aj = math.atan2(zj, stem_w / 2)           # where the stem meets the outer arc
    P = [(-stem_w / 2, zj - stem_L), (stem_w / 2, zj - stem_L), (stem_w / 2, zj)]
    P += [(ro * math.cos(a), ro * math.sin(a)) for a in np.linspace(aj, 0, narc)[1:]]
    P += [(ro, Lp), (ri, Lp)]
    P += [(ri * math.cos(a), ri * math.sin(a)) for a in np.linspace(0, -np.pi, 2 * narc)]
    P += [(-ri, Lp), (-ro, Lp)]
    P += [(ro * math.cos(a), ro * math.sin(a)) for a in np.linspace(-np.pi, -np.pi - aj, narc)[:-1]]
    P += [(-stem_w / 2, zj)]
    P = np.array(P)
    P[:, 1] -= P[:, 1].min()
    area = 0.5 * np.sum(P[:, 0] * np.roll(P[:, 1], -1) - np.roll(P[:, 0], -1) * P[:, 1])
    if area < 0:
        P = P[::-1].copy()
    b = _Builder()
    tri = triangulate_polygon(P)
    for y, s in ((-th / 2, -1.0), (th / 2, 1.0)):
        b.add([(x, y, z) for x, z in P], tri, (0, s, 0))
    m = len(P)
    for k in range(m):
        p, q = P[k], P[(k + 1) % m]
        d = q - p
        out = np.array([d[1], 0.0, -d[0]])
        b.add([(p[0], -th / 2, p[1]), (q[0], -th / 2, q[1]), (q[0], th / 2, q[1]), (p[0], th / 2, p[1])],
              [(0, 1, 2), (0, 2, 3)], out)
    return b.mesh()


# ----------------------------------------------------------------------------------------------
# wheel: a low-poly game asset

def wheel(nseg=24):
    prof = [(0.03, -0.06), (0.08, -0.06), (0.09, -0.02), (0.20, -0.02), (0.215, -0.07),
            (0.235, -0.085), (0.27, -0.095), (0.305, -0.08), (0.32, -0.035), (0.32, 0.035),
            (0.305, 0.08), (0.27, 0.095), (0.235, 0.085), (0.215, 0.07), (0.20, 0.02),
            (0.09, 0.02), (0.08, 0.06), (0.03, 0.06)]
    V, polys = revolve_profile(prof, nseg)
    F = triangulate_polys(polys)
    if signed_volume_np(V, F) < 0:
        polys = [p[::-1] for p in polys]
    return V, polys


# ----------------------------------------------------------------------------------------------

OBJECTS = ["statue", "bell", "bracket", "knot_mm", "sword", "fork_mm", "wheel", "spot"]


def spot_source():
    return os.environ.get("SPOT_OBJ") or os.path.join(here, "..", "..", "shared", "benchmarks",
                                                     "real", "spot.obj")


def fmt_stats(name, st, extra=""):
    ex = st["extent"]
    return ("%-12s %6d v %6d tri  %.3g x %.3g x %.3g  edge %.2g/%.2g/%.2g  aspect %.1f/%.1f/%.0f%s"
            % (name, st["vertices"], st["triangles"], ex[0], ex[1], ex[2], *st["edge"],
               *st["aspect"], extra))


def make(name, outdir):
    t0 = time.time()
    extra = ""
    if name == "spot":
        src = spot_source()
        if not os.path.exists(src):
            print("spot         skipped: %s not found (set SPOT_OBJ)" % src)
            return None
        path = os.path.join(outdir, "spot.obj")
        shutil.copyfile(src, path)
        V, F = read_mesh(path)
    elif name in ("bracket", "fork_mm"):
        V, F = bracket() if name == "bracket" else fork_mm()
        V, F = stl_float32(V, F)
        path = os.path.join(outdir, name + ".stl")
        write_stl(path, V, F, "mesh2dsp bench %s (%s)" % (name, "mm" if name.endswith("_mm") else "m"))
    else:
        normals = None
        triangle_objects = {
            "statue": (statue, "scanned-statue look-alike, 1.0 m tall (metres)"),
            "bell": (bell, "CAD-revolved church bell, 0.7 m tall, 360 segments (metres)"),
            "knot_mm": (knot_mm, "trefoil knot tube, MILLIMETRES, tube radius 8 mm"),
        }
        if name in triangle_objects:
            make_triangles, comment = triangle_objects[name]
            V, F = make_triangles()
            polys = F.tolist()
        elif name == "sword":
            V, polys = sword()
            comment = "quad-dominant sword scan, 0.87 m (metres)"
        elif name == "wheel":
            V, polys = wheel()
            comment = "low-poly game wheel, 0.64 m across (metres), flat shaded"
            F = triangulate_polys(polys)
            T = V[F]
            n = np.cross(T[:, 1] - T[:, 0], T[:, 2] - T[:, 0])
            normals = []
            k = 0
            for p in polys:
                nn = n[k:k + len(p) - 2].sum(axis=0)
                normals.append(nn / np.linalg.norm(nn))
                k += len(p) - 2
        F = triangulate_polys(polys)
        path = os.path.join(outdir, name + ".obj")
        write_obj_polys(path, V, polys, comment, normals)
        nq = sum(1 for p in polys if len(p) == 4)
        if nq:
            extra = "  (%d quads, %d triangles in the file)" % (nq, len(polys) - nq)
        V, F = read_mesh(path)        # check what was written, as the tool will read it
    problems, st = check_mesh(V, F, name)
    print(fmt_stats(name, st, extra) + "  %.1fs" % (time.time() - t0))
    if problems:
        print("  INVALID %s: %s" % (name, "; ".join(problems)))
    return problems


def main(argv):
    if argv and argv[0] == "--check":
        bad = 0
        for p in argv[1:]:
            V, F = read_mesh(p)
            problems, st = check_mesh(V, F)
            print(fmt_stats(os.path.basename(p), st))
            if problems:
                bad += 1
                print("  INVALID: " + "; ".join(problems))
        return 1 if bad else 0
    if argv and argv[0] in ("-h", "--help"):
        print(__doc__)
        return 0
    if argv and argv[0].startswith("-"):
        # an option taken for the output directory wrote a folder named after it
        sys.exit("make_bench_objects.py: unknown option %r (see --help)" % argv[0])
    outdir = argv[0] if argv else "."
    names = argv[1:] or OBJECTS
    for n in names:
        if n not in OBJECTS:
            sys.exit("make_bench_objects.py: unknown object %r (have: %s)" % (n, " ".join(OBJECTS)))
    os.makedirs(outdir, exist_ok=True)
    failed = [n for n in names if make(n, outdir)]
    if failed:
        print("make_bench_objects.py: invalid: " + " ".join(failed), file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
