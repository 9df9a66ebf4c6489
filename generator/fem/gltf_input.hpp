#pragma once
// glTF 2.0 (.gltf with embedded or external buffers, .glb) surfaces, through Debian's tinygltf.
#include <Eigen/Core>
#include <filesystem>
#include <vector>

namespace mesh2dsp {

// The triangles of every mesh primitive the default scene (or, without scenes, every mesh)
// draws, as a soup: three corner positions per triangle, in metres (glTF's unit) times `scale`,
// with each node's transform applied (a mirroring transform keeps the faces outward).
// Triangle strips and fans are split into triangles; points and lines are ignored. glTF splits
// vertices at UV and normal seams, so the caller merges equal positions. Throws mesh2dsp::Error
// naming the file and the problem (unreadable file, unsupported compression, bad accessor).
std::vector<Eigen::Vector3d> read_gltf_triangles(const std::filesystem::path& path);

}  // namespace mesh2dsp
