#pragma once
// `validate --analytic`: a model's frequencies against the continuum theory of its shape
// (analytic_references.hpp), each theory mode matched to the nearest model mode not yet taken.
#include <string>
#include <vector>

#include "modal/modal_model.hpp"
#include "validate/analytic_references.hpp"

namespace mesh2dsp::validate {

struct AnalyticRow {
  AnalyticMode reference;
  int model_mode = -1;  // index into the model's modes; -1 when none is left
  double model_hz = 0;
  double error = 0;     // model / reference − 1
  bool passed = false;
};

struct AnalyticComparison {
  BoxShape box;
  std::vector<AnalyticRow> rows;
  double tolerance = 0;  // relative
  bool passed = false;
};

// Compares the theory's modes up to the model's highest mode (a model of N modes is not faulted
// for the band above it).
AnalyticComparison compare_with_analytic(const ModalModel& model, const BoxShape& box, double tolerance);

// report.json-style record and a plain-text table of the comparison.
std::string analytic_json(const AnalyticComparison& c, const std::string& mesh, const ModalModel& model);
std::string analytic_table(const AnalyticComparison& c);

}  // namespace mesh2dsp::validate
