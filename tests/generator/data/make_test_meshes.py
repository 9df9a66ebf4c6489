#!/usr/bin/env python3
"""Writes the small meshes the surface-mesh tests read (standard library only, deterministic).
Run from anywhere: python3 make_test_meshes.py [outdir]. The outputs are committed (a few KB)."""
import itertools, os, struct, sys

# Unit cube [0,1]^3, outward counter-clockwise triangles (0-based).
V = [(x, y, z) for z in (0, 1) for y in (0, 1) for x in (0, 1)]  # index = x + 2y + 4z
QUADS = [(0, 2, 3, 1),  # z=0, normal -z
         (4, 5, 7, 6),  # z=1, +z
         (0, 1, 5, 4),  # y=0, -y
         (2, 6, 7, 3),  # y=1, +y
         (0, 4, 6, 2),  # x=0, -x
         (1, 3, 7, 5)]  # x=1, +x
T = [t for a, b, c, d in QUADS for t in ((a, b, c), (a, c, d))]


def obj(name, verts, tris, extra=""):
    with open(name, "w") as f:
        f.write("# %s (mesh2dsp surface-mesh test)\n" % name + extra)
        for v in verts:
            f.write("v %s %s %s\n" % tuple(v))
        for t in tris:
            f.write("f %s\n" % " ".join(str(i + 1) for i in t))


def stl_ascii(name, verts, tris):
    with open(name, "w") as f:
        f.write("solid cube\n")
        for t in tris:
            f.write("  facet normal 0 0 0\n    outer loop\n")
            for i in t:
                f.write("      vertex %s %s %s\n" % tuple(float(c) for c in verts[i]))
            f.write("    endloop\n  endfacet\n")
        f.write("endsolid cube\n")


def stl_binary_bytes(verts, tris):
    out = b"binary STL cube for mesh2dsp tests".ljust(80, b" ") + struct.pack("<I", len(tris))
    for t in tris:
        out += struct.pack("<3f", 0, 0, 0)
        for i in t:
            out += struct.pack("<3f", *verts[i])
        out += struct.pack("<H", 0)
    return out


def main(outdir):
    os.makedirs(outdir, exist_ok=True)
    os.chdir(outdir)
    # --- the same cube in every format
    obj("cube.obj", V, T)
    obj("cube_quads.obj", V, QUADS, "o cube\nvn 0 0 1\nvt 0 0\n")
    stl_ascii("cube_ascii.stl", V, T)
    with open("cube_binary.stl", "wb") as f:
        f.write(stl_binary_bytes(V, T))
    with open("cube.off", "w") as f:  # quads, a comment, counts on their own line
        f.write("OFF\n# unit cube, quads\n%d %d 0\n" % (len(V), len(QUADS)))
        for v in V:
            f.write("%s %s %s\n" % v)
        for q in QUADS:
            f.write("4 %d %d %d %d\n" % q)
    with open("cube_ascii.ply", "w") as f:  # extra vertex and face properties to skip
        f.write("ply\nformat ascii 1.0\ncomment unit cube\nelement vertex %d\n"
                "property float x\nproperty float y\nproperty float z\nproperty uchar red\n"
                "element face %d\nproperty list uchar int vertex_indices\nproperty int flags\n"
                "end_header\n" % (len(V), len(T)))
        for v in V:
            f.write("%s %s %s 255\n" % v)
        for t in T:
            f.write("3 %d %d %d 7\n" % t)
    with open("cube_binary.ply", "wb") as f:  # little endian, float xyz, normals, quads
        f.write(b"ply\nformat binary_little_endian 1.0\nelement vertex %d\n"
                b"property float x\nproperty float y\nproperty float z\n"
                b"property float nx\nproperty float ny\nproperty float nz\n"
                b"element face %d\nproperty list uchar uint vertex_indices\n"
                b"element edge 1\nproperty int vertex1\nproperty int vertex2\nend_header\n"
                % (len(V), len(QUADS)))
        for v in V:
            f.write(struct.pack("<6f", *v, 0, 0, 1))
        for q in QUADS:
            f.write(struct.pack("<B4I", 4, *q))
        f.write(struct.pack("<2i", 0, 1))
    with open("cube_binary_be.ply", "wb") as f:  # big endian, double xyz, int8 extra
        f.write(b"ply\nformat binary_big_endian 1.0\nelement vertex %d\n"
                b"property char flag\nproperty double x\nproperty double y\nproperty double z\n"
                b"element face %d\nproperty list uchar int vertex_index\nend_header\n"
                % (len(V), len(T)))
        for v in V:
            f.write(struct.pack(">b3d", -1, *v))
        for t in T:
            f.write(struct.pack(">B3i", 3, *t))

    # --- bad inputs
    obj("open_box.obj", V, T[:2] + T[4:])          # top (z=1) quad missing: a hole
    obj("edge_three_faces.obj", V + [(0.5, -0.5, -0.5)], T + [(0, 1, 8)])  # a fin on edge (0, 1)
    V2 = V + [(x, y, z) for z in (1, 2) for y in (1, 2) for x in (1, 2)][1:]  # shares (1,1,1)
    def second(i):
        return 7 if i == 0 else 7 + i
    obj("two_cubes_vertex.obj", V2, T + [tuple(second(i) for i in t) for t in T])
    flipped = list(T)
    flipped[5] = (T[5][0], T[5][2], T[5][1])
    obj("flipped_face.obj", V, flipped)
    obj("inverted_cube.obj", V, [(a, c, b) for a, b, c in T])
    # Two shells: a cavity (inward faces, inside the material) is right; a free-standing
    # inverted shell next to the object is not, though the total volume is positive.
    def cube_at(lo, size, inward):
        vs = [tuple(lo + size * c for c in v) for v in V]
        return vs, [(a, c, b) if inward else (a, b, c) for a, b, c in T]
    def two_shells(name, first, second):
        (v1, t1), (v2, t2) = first, second
        obj(name, v1 + v2, t1 + [tuple(i + len(v1) for i in t) for t in t2])
    two_shells("hollow_cube.obj", cube_at(0, 1, False), cube_at(0.25, 0.5, True))
    two_shells("inverted_hollow_cube.obj", cube_at(0, 1, True), cube_at(0.25, 0.5, False))
    two_shells("stray_inverted_shell.obj", cube_at(0, 1, False), cube_at(2, 0.5, True))
    obj("degenerate_face.obj", V + [(0.5, 0, 0)], T + [(0, 8, 1)])   # collinear: zero area
    obj("repeated_vertex.obj", V, T + [(0, 0, 1)])
    with open("nan_coordinate.obj", "w") as f:
        f.write("v 0 0 0\nv 1 0 0\nv nan 1 0\nv 0 0 1\nf 1 3 2\nf 1 2 4\nf 1 4 3\nf 2 3 4\n")
    with open("nan_coordinate.off", "w") as f:
        f.write("OFF\n4 4 0\n0 0 0\n1 0 0\n0 NaN 0\n0 0 1\n3 0 2 1\n3 0 1 3\n3 0 3 2\n3 1 2 3\n")
    open("empty.obj", "w").close()
    open("empty.stl", "w").close()
    with open("comments_only.obj", "w") as f:
        f.write("# nothing here\n")
    with open("truncated_binary.stl", "wb") as f:
        f.write(stl_binary_bytes(V, T)[:500])
    with open("truncated_binary.ply", "wb") as f:
        f.write(open("cube_binary.ply", "rb").read()[:-20])
    with open("missing_vertex.off", "w") as f:
        f.write("OFF\n%d %d 0\n" % (len(V), len(T)))
        for v in V:
            f.write("%s %s %s\n" % v)
        for k, t in enumerate(T):
            f.write("3 %d %d %d\n" % ((8, t[1], t[2]) if k == 7 else t))
    with open("too_few_faces.off", "w") as f:  # counts larger than the file
        f.write("OFF\n%d %d 0\n" % (len(V), len(T) + 3))
        for v in V:
            f.write("%s %s %s\n" % v)
        for t in T:
            f.write("3 %d %d %d\n" % t)

    # --- TetGen: the cube as 6 Kuhn tetrahedra (along the diagonal 0-7), 1-based, with every
    # other tetrahedron written negatively oriented, a point attribute and boundary markers.
    tets = []
    for perm in itertools.permutations(range(3)):
        p, path = [0, 0, 0], [0]
        for axis in perm:
            p[axis] = 1
            path.append(p[0] + 2 * p[1] + 4 * p[2])
        tets.append(path)
    def orient(t):
        a, b, c, d = (V[i] for i in t)
        e = [[q[k] - a[k] for k in range(3)] for q in (b, c, d)]
        return (e[0][0] * (e[1][1] * e[2][2] - e[1][2] * e[2][1])
                - e[0][1] * (e[1][0] * e[2][2] - e[1][2] * e[2][0])
                + e[0][2] * (e[1][0] * e[2][1] - e[1][1] * e[2][0]))
    tets = [t if (orient(t) > 0) == (k % 2 == 0) else [t[0], t[2], t[1], t[3]] for k, t in enumerate(tets)]
    with open("cube_tets.node", "w") as f:
        f.write("# unit cube\n%d 3 1 1\n" % len(V))
        for i, v in enumerate(V):
            f.write("%d  %s %s %s  0.5  1\n" % ((i + 1,) + v))
    with open("cube_tets.ele", "w") as f:
        f.write("%d 4 1\n" % len(tets))
        for k, t in enumerate(tets):
            f.write("%d  %d %d %d %d  %d\n" % (k + 1, t[0] + 1, t[1] + 1, t[2] + 1, t[3] + 1, 2))
    # The same tetrahedra as 10-node elements, 0-based, with edge-midpoint nodes appended.
    mids, mverts = {}, list(V)
    def mid(a, b):
        key = (min(a, b), max(a, b))
        if key not in mids:
            mids[key] = len(mverts)
            mverts.append(tuple((V[a][k] + V[b][k]) / 2 for k in range(3)))
        return mids[key]
    ele10 = []
    for t in tets:
        a, b, c, d = t
        ele10.append(t + [mid(a, b), mid(b, c), mid(c, a), mid(a, d), mid(b, d), mid(c, d)])
    with open("cube_tets10.node", "w") as f:
        f.write("%d 3 0 0\n" % len(mverts))
        for i, v in enumerate(mverts):
            f.write("%d %r %r %r\n" % ((i,) + tuple(float(c) for c in v)))
    with open("cube_tets10.ele", "w") as f:
        f.write("%d 10 0\n" % len(ele10))
        for k, t in enumerate(ele10):
            f.write("%d %s\n" % (k, " ".join(str(i) for i in t)))
    with open("bad_tets.node", "w") as f:
        f.write("4 3 0 0\n1 0 0 0\n2 1 0 0\n3 0 1 0\n4 0 0 1\n")
    with open("bad_tets.ele", "w") as f:
        f.write("1 4 0\n1 1 2 3 5\n")


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else os.path.dirname(os.path.abspath(__file__)))
