#pragma once
// Per-mode listener gains of a modal model, by the reference solver's own radiation model
// (radiation.hpp): the physics the analysis and the solver share lives here, below both.
#include <Eigen/Core>

#include "fem/fem_mesh.hpp"
#include "fem/tet_mesh.hpp"
#include "modal/modal_model.hpp"

namespace mesh2dsp {

// Per-mode listener gains by the reference solver's radiation model (O'Brien, Cook & Essl 2001, eqs. 10-11);
// `eigenvalues` are the modes' ω², for the phase of each triangle's delay.
ModalListener listener_gains(const TetMesh& tets, const Eigen::MatrixXd& shapes,
                             const Eigen::VectorXd& eigenvalues, const Eigen::Vector3d& position);

}  // namespace mesh2dsp

namespace mesh2dsp {

// The boundary-element alternative (radiation/bem.hpp), per mode at its own frequency: each
// listener's complex pressure, its real gain and delay, and each mode's far-field directivity.
// `listeners` in `model` must already hold the positions; their gains, delays and pressures are
// replaced. Sets model.analysis.radiation to "bem". `eigenvalues` are the modes' ω², in the
// order of `shapes`' columns and of model.modes. With a quadratic `fem` (P2, its boundary edge
// nodes on the object's surface) the boundary elements are its curved 6-node boundary
// triangles, and each one's normal velocity is the P2 field's at its collocation point; with a
// linear one, flat triangles and the mean of their corners' velocities.
void bem_radiation(ModalModel& model, const TetMesh& tets, const FemMesh& fem, const Eigen::MatrixXd& shapes,
                   const Eigen::VectorXd& eigenvalues);

}  // namespace mesh2dsp
