#pragma once
// Per-mode listener gains of a modal model, by the reference solver's own radiation model
// (radiation.hpp): the physics the analysis and the solver share lives here, below both.
#include <Eigen/Core>

#include "fem/tet_mesh.hpp"
#include "modal/modal_model.hpp"

namespace mesh2dsp {

// Per-mode listener gains by the reference solver's radiation model (O'Brien, Cook & Essl 2001, eqs. 10-11);
// `eigenvalues` are the modes' ω², for the phase of each triangle's delay.
ModalListener listener_gains(const TetMesh& tets, const Eigen::MatrixXd& shapes,
                             const Eigen::VectorXd& eigenvalues, const Eigen::Vector3d& position);

}  // namespace mesh2dsp
