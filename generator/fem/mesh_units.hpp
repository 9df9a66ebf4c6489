#pragma once
// Length units of mesh files, and the plausibility of an object's size: mesh files carry no
// unit, and a fork drawn in millimetres read as metres is a 164 m fork.
#include <Eigen/Core>
#include <optional>
#include <string>
#include <string_view>

namespace mesh2dsp {

// Metres per unit for the names --units accepts: mm, cm, m, in. None for anything else.
std::optional<double> unit_scale(std::string_view unit);

// The notice for an object whose bounding-box diagonal (already times `scale`) is implausible
// for a sounding object (> 20 m or < 1 mm), suggesting the --units (or --scale) that gives it
// a plausible size; empty when the size is plausible.
std::string implausible_size_message(double diagonal_m, double scale);

// Prints implausible_size_message for these vertices (metres, scaled), if there is one.
void notice_implausible_size(const Eigen::MatrixXd& vertices_m, double scale);

}  // namespace mesh2dsp
