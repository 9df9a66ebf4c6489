#pragma once
// The strike: where (a surface vertex, or a surface point shared by the nearest face's
// vertices), along what (the inward normal or a given direction) and how over time
// (an impulse, the raised cosine of van den Doel & Pai 2003, eq. 7, or a force time series from a file).
#include <Eigen/Core>
#include <Eigen/Geometry>
#include <string>
#include <vector>

#include "fem/tet_mesh.hpp"

namespace mesh2dsp {

enum class ForceKind { impulse, cosine, file };

struct ForceProfile {
  ForceKind kind = ForceKind::cosine;
  double duration_s = 1e-4;     // cosine: T of eq. 7
  double amplitude = 1.0;       // impulse: N·s; cosine: F_max of eq. 7 (N); file: scale factor
  std::vector<double> times_s;  // file: strictly increasing
  std::vector<double> forces_n;
  std::string spec;
};

// "impulse", "cosine:T" (T in seconds), "file:PATH" (two numbers per line: time_s force_N;
// '#' starts a comment; zero force before the first and after the last sample). Throws
// mesh2dsp::Error with one clear message on anything else.
ForceProfile parse_force(const std::string& spec, double amplitude);

// The force at time t (N). An impulse is not a force: it is applied as an initial velocity
// (see NewmarkIntegrator::start) and gives 0 here.
double force_at(const ForceProfile& profile, double t_s);

// The time after which the force stays zero (0 for an impulse).
double force_end_s(const ForceProfile& profile);

struct StrikePoint {
  std::vector<int> nodes;        // mesh vertices (= FEM corner nodes) sharing the force
  std::vector<double> weights;   // barycentric shares, sum 1
  Eigen::Vector3d position_m;    // where it is applied
  Eigen::Vector3d direction;     // unit force direction
  std::string description;       // for the sidecar
};

// "auto" (or "auto:1"): the free surface vertex nearest to a point a little off the centre of
// the object's top (+z) side, so that a clamped border or a symmetry plane is avoided;
// "vertex:I" (via the generator's select_excitation_vertices); "point:X,Y,Z": the closest point
// on the surface, shared by its face's three vertices with barycentric weights.
// `direction`: empty → into the surface (minus the outward normal), else "X,Y,Z".
// `clamped` (per vertex, may be empty) keeps auto away from clamped vertices.
StrikePoint parse_strike(const std::string& spec, const std::string& direction,
                         const TetMesh& mesh, const std::vector<bool>& clamped);

// Full-DOF force vector (3N over `node_count` nodes) for a unit force along the strike.
Eigen::VectorXd strike_load(const StrikePoint& strike, int node_count);

}  // namespace mesh2dsp
