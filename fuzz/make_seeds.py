#!/usr/bin/env python3
"""Writes the seed corpora of the fuzz harnesses (fuzz/corpus/<harness>/seed-*): one small
valid input per format variant (a unit cube: 8 vertices, 12 triangles, or 5 tetrahedra) and a
few near-misses, so the fuzzer starts from every branch of each reader. Findings are added
by hand as finding-* files next to them. Run from anywhere: python3 fuzz/make_seeds.py"""
import base64, json, os, struct

HERE = os.path.dirname(os.path.abspath(__file__))
V = [(0, 0, 0), (1, 0, 0), (1, 1, 0), (0, 1, 0), (0, 0, 1), (1, 0, 1), (1, 1, 1), (0, 1, 1)]
F = [(0, 2, 1), (0, 3, 2), (4, 5, 6), (4, 6, 7), (0, 1, 5), (0, 5, 4),
     (1, 2, 6), (1, 6, 5), (2, 3, 7), (2, 7, 6), (3, 0, 4), (3, 4, 7)]
T = [(0, 1, 3, 4), (1, 2, 3, 6), (1, 3, 4, 6), (1, 4, 5, 6), (3, 4, 6, 7)]


def put(harness, name, data):
    d = os.path.join(HERE, "corpus", harness)
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, "seed-" + name), "wb") as f:
        f.write(data.encode() if isinstance(data, str) else data)


def normal(f):
    a, b, c = (V[i] for i in f)
    u = [b[k] - a[k] for k in range(3)]; w = [c[k] - a[k] for k in range(3)]
    return (u[1] * w[2] - u[2] * w[1], u[2] * w[0] - u[0] * w[2], u[0] * w[1] - u[1] * w[0])


# OBJ
put("obj", "cube.obj", "".join(f"v {x} {y} {z}\n" for x, y, z in V) +
    "".join(f"f {a+1} {b+1} {c+1}\n" for a, b, c in F))
put("obj", "quads.obj", "# quads, negative indices\n" + "".join(f"v {x} {y} {z}\n" for x, y, z in V) +
    "f -8 -5 -6 -7\nf 5 6 7 8\nf 1 2 6 5\nf 2 3 7 6\nf 3 4 8 7\nf 4 1 5 8\n")
put("obj", "texcoords.obj", "o cube\n" + "".join(f"v {x} {y} {z}\n" for x, y, z in V) +
    "vt 0 0\nvn 0 0 1\ng a\nusemtl m\n" + "".join(f"f {a+1}/1/1 {b+1}/1/1 {c+1}//1\n" for a, b, c in F))
# STL
put("stl", "ascii.stl", "solid cube\n" + "".join(
    "facet normal {} {} {}\n outer loop\n".format(*normal(f)) +
    "".join("  vertex {} {} {}\n".format(*V[i]) for i in f) + " endloop\nendfacet\n" for f in F) +
    "endsolid cube\n")
put("stl", "binary.stl", b"binary cube".ljust(80, b" ") + struct.pack("<I", len(F)) + b"".join(
    struct.pack("<3f", *normal(f)) + b"".join(struct.pack("<3f", *V[i]) for i in f) + b"\0\0"
    for f in F))
put("stl", "binary_solid_header.stl", b"solid but binary".ljust(80, b" ") + struct.pack("<I", len(F)) +
    b"".join(struct.pack("<3f", *normal(f)) + b"".join(struct.pack("<3f", *V[i]) for i in f) + b"\0\0"
             for f in F))
# OFF
put("off", "cube.off", f"OFF\n{len(V)} {len(F)} 0\n" + "".join(f"{x} {y} {z}\n" for x, y, z in V) +
    "".join(f"3 {a} {b} {c}\n" for a, b, c in F))
put("off", "quads_comments.off", "OFF # cube\n8 6 12\n" + "".join(f"{x} {y} {z}\n" for x, y, z in V) +
    "4 0 3 2 1\n4 4 5 6 7\n4 0 1 5 4\n4 1 2 6 5\n4 2 3 7 6\n4 3 0 4 7 255 0 0\n")
# PLY
def ply_header(fmt, faces="face", extra=""):
    return (f"ply\nformat {fmt} 1.0\ncomment cube\nelement vertex {len(V)}\nproperty float x\n"
            "property float y\nproperty float z\n" + extra +
            (f"element face {len(F)}\nproperty list uchar int vertex_indices\n" if faces == "face" else
             "element tristrips 1\nproperty list int int vertex_indices\n") + "end_header\n")
put("ply", "ascii.ply", ply_header("ascii") + "".join(f"{x} {y} {z}\n" for x, y, z in V) +
    "".join(f"3 {a} {b} {c}\n" for a, b, c in F))
for name, e in (("binary_le.ply", "<"), ("binary_be.ply", ">")):
    fmt = "binary_little_endian" if e == "<" else "binary_big_endian"
    put("ply", name, ply_header(fmt).encode() + b"".join(struct.pack(e + "3f", *v) for v in V) +
        b"".join(struct.pack(e + "B3i", 3, *f) for f in F))
put("ply", "double_extra.ply",
    ("ply\nformat binary_little_endian 1.0\nelement vertex 8\nproperty double x\nproperty double y\n"
     "property double z\nproperty uchar red\nelement face 12\nproperty list uint8 uint32 vertex_indices\n"
     "property float quality\nend_header\n").encode() +
    b"".join(struct.pack("<3dB", *v, 7) for v in V) + b"".join(struct.pack("<B3If", 3, *f, 1.0) for f in F))
strip = [0, 3, 1, 2, 5, 6, 4, 7, 0, 3, -1, 3, 7, 2, 6, -1, 0, 4, 1, 5]
put("ply", "tristrips.ply", ply_header("ascii", faces="strips") + "".join(f"{x} {y} {z}\n" for x, y, z in V) +
    f"{len(strip)} " + " ".join(map(str, strip)) + "\n")
# glTF
pos = b"".join(struct.pack("<3f", *v) for v in V)
idx = b"".join(struct.pack("<3H", *f) for f in F)
def gltf(uri, mode=4, extra_node=None):
    j = {"asset": {"version": "2.0"}, "scene": 0, "scenes": [{"nodes": [0]}],
         "nodes": [extra_node or {"mesh": 0}],
         "meshes": [{"primitives": [{"attributes": {"POSITION": 0}, "indices": 1, "mode": mode}]}],
         "buffers": [{"byteLength": len(pos) + len(idx)}],
         "bufferViews": [{"buffer": 0, "byteOffset": 0, "byteLength": len(pos)},
                         {"buffer": 0, "byteOffset": len(pos), "byteLength": len(idx)}],
         "accessors": [{"bufferView": 0, "componentType": 5126, "count": 8, "type": "VEC3",
                        "min": [0, 0, 0], "max": [1, 1, 1]},
                       {"bufferView": 1, "componentType": 5123, "count": 36, "type": "SCALAR"}]}
    if uri is not None:
        j["buffers"][0]["uri"] = uri
    return json.dumps(j)
data_uri = "data:application/octet-stream;base64," + base64.b64encode(pos + idx).decode()
put("gltf", "embedded.gltf", gltf(data_uri))
put("gltf", "mirrored.gltf", gltf(data_uri, extra_node={"mesh": 0, "scale": [-1, 1, 1],
                                                        "translation": [1, 0, 0]}))
js = gltf(None).encode(); js += b" " * (-len(js) % 4)
bn = pos + idx; bn += b"\0" * (-len(bn) % 4)
put("gltf", "binary.glb", b"glTF" + struct.pack("<II", 2, 12 + 8 + len(js) + 8 + len(bn)) +
    struct.pack("<I", len(js)) + b"JSON" + js + struct.pack("<I", len(bn)) + b"BIN\0" + bn)
# TetGen: .node, a "%%ele%%" line, .ele
node = f"{len(V)} 3 0 0\n" + "".join(f"{i} {x} {y} {z}\n" for i, (x, y, z) in enumerate(V))
put("tetgen", "zero_based", node + "%%ele%%\n" + f"{len(T)} 4 0\n" +
    "".join(f"{i} {a} {b} {c} {d}\n" for i, (a, b, c, d) in enumerate(T)))
node1 = f"# one-based, attributes and markers\n{len(V)} 3 1 1\n" + "".join(
    f"{i+1} {x} {y} {z} 0.5 1\n" for i, (x, y, z) in enumerate(V))
put("tetgen", "one_based", node1 + "%%ele%%\n" + f"{len(T)} 4 1\n" +
    "".join(f"{i+1} {a+1} {c+1} {b+1} {d+1} 2\n" for i, (a, b, c, d) in enumerate(T)))
# Gmsh
def msh22(binary):
    s = b"$MeshFormat\n2.2 " + (b"1 8\n" + struct.pack("<i", 1) + b"\n" if binary else b"0 8\n") + b"$EndMeshFormat\n"
    s += f"$Nodes\n{len(V)}\n".encode()
    for i, v in enumerate(V):
        s += struct.pack("<i3d", i + 1, *v) if binary else f"{i+1} {v[0]} {v[1]} {v[2]}\n".encode()
    s += (b"\n" if binary else b"") + f"$EndNodes\n$Elements\n{len(T)}\n".encode()
    if binary:
        s += struct.pack("<3i", 4, len(T), 2)
        for i, t in enumerate(T):
            s += struct.pack("<3i4i", i + 1, 1, 1, *(n + 1 for n in t))
        s += b"\n"
    else:
        s += "".join(f"{i+1} 4 2 1 1 {' '.join(str(n+1) for n in t)}\n" for i, t in enumerate(T)).encode()
    return s + b"$EndElements\n"
put("gmsh", "v22_ascii.msh", msh22(False))
put("gmsh", "v22_binary.msh", msh22(True))
def msh41(binary):
    s = b"$MeshFormat\n4.1 " + (b"1 8\n" + struct.pack("<i", 1) + b"\n" if binary else b"0 8\n") + b"$EndMeshFormat\n"
    s += b"$Nodes\n"
    if binary:
        s += struct.pack("<4Q", 1, len(V), 1, len(V)) + struct.pack("<iiiQ", 3, 1, 0, len(V))
        s += b"".join(struct.pack("<Q", i + 1) for i in range(len(V))) + b"".join(struct.pack("<3d", *v) for v in V) + b"\n"
    else:
        s += f"1 {len(V)} 1 {len(V)}\n3 1 0 {len(V)}\n".encode() + "".join(f"{i+1}\n" for i in range(len(V))).encode()
        s += "".join(f"{x} {y} {z}\n" for x, y, z in V).encode()
    s += b"$EndNodes\n$Elements\n"
    if binary:
        s += struct.pack("<4Q", 1, len(T), 1, len(T)) + struct.pack("<iiiQ", 3, 1, 4, len(T))
        s += b"".join(struct.pack("<5Q", i + 1, *(n + 1 for n in t)) for i, t in enumerate(T)) + b"\n"
    else:
        s += f"1 {len(T)} 1 {len(T)}\n3 1 4 {len(T)}\n".encode()
        s += "".join(f"{i+1} {' '.join(str(n+1) for n in t)}\n" for i, t in enumerate(T)).encode()
    return s + b"$EndElements\n"
put("gmsh", "v41_ascii.msh", msh41(False))
put("gmsh", "v41_binary.msh", msh41(True))
# Modal model
model = {"format": "mesh2dsp-modal-model", "version": 1, "name": "cube",
         "mesh": {"source": "cube.obj", "vertices": 8, "tetrahedra": 5, "element_order": 2, "scale": 1},
         "material": {"name": "steel", "density": 7850, "youngs_modulus": 2.0e11, "poisson_ratio": 0.29,
                      "rayleigh_mass": 5, "rayleigh_stiffness": 3e-8},
         "analysis": {"fmin_hz": 20, "fmax_hz": 20000, "requested_modes": 3, "fixed": ["x<=0"],
                      "normalization": "physical"},
         "modes": [{"frequency_hz": f, "damping_ratio": 0.001, "t60_s": 1.5, "eigenvalue": (6.283185307179586 * f) ** 2}
                   for f in (421.7, 1200.5, 3300.25)],
         "excitations": [{"vertex": v, "position": list(V[v]), "direction": [0, 0, 1],
                          "gains": [0.8, -0.1 * v, 0.3]} for v in (4, 5, 6)],
         "excitation_triangles": [[0, 1, 2]],
         "listeners": [{"position": [0, 0, 0.5], "gains": [0.01, 0.4, -0.2], "delay_s": 0.0014}]}
put("model", "full.modal.json", json.dumps(model, indent=1))
minimal = {k: model[k] for k in ("format", "version", "name", "mesh", "material", "modes", "excitations")}
put("model", "minimal.modal.json", json.dumps(minimal))
undamped = json.loads(json.dumps(minimal)); undamped["modes"][0]["t60_s"] = None
undamped["material"]["rayleigh_mass"] = 0; undamped["material"]["rayleigh_stiffness"] = 0
put("model", "undamped.modal.json", json.dumps(undamped))
# Mini-languages: first byte 0 fix, 1 excite, 2 listener, 3 set, 4 trigger
for i, (k, text) in enumerate([(0, "x<=0.0"), (0, "Y >= 0.05"), (0, "z<-1e-3"),
                               (1, "auto:8"), (1, "vertex:0,1,26"), (1, "point:0,0,0;0.2,0.1,0.05"),
                               (2, "0,0,0.5"), (2, "-1e-3,2.5,7"),
                               (3, "freq=440"), (3, "excitation=scrape@0.5"), (3, "/bowl/gate=1@0.25"),
                               (4, "gate@0.1"), (4, "@0.1+0.05"), (4, "moving contact@1")]):
    put("options", f"{i:02d}", bytes([k]) + text.encode())
