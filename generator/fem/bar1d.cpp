#include "fem/bar1d.hpp"

#include <vector>

namespace mesh2dsp {

void bar1d_element_matrices(double E, double A, double rho, double l, Eigen::Matrix2d& k,
                            Eigen::Matrix2d& m) {
  k << 1, -1, -1, 1;
  k *= E * A / l;
  m << 2, 1, 1, 2;
  m *= rho * A * l / 6.0;
}

FemMatrices assemble_bar1d(int elements, double E, double A, double rho, double length) {
  const double l = length / elements;
  Eigen::Matrix2d ke, me;
  bar1d_element_matrices(E, A, rho, l, ke, me);
  std::vector<Eigen::Triplet<double>> kt, mt;
  for (int e = 0; e < elements; ++e)
    for (int i = 0; i < 2; ++i)
      for (int j = 0; j <= i; ++j) {
        kt.emplace_back(e + i, e + j, ke(i, j));
        mt.emplace_back(e + i, e + j, me(i, j));
      }
  FemMatrices out;
  out.stiffness.resize(elements + 1, elements + 1);
  out.mass.resize(elements + 1, elements + 1);
  out.stiffness.setFromTriplets(kt.begin(), kt.end());
  out.mass.setFromTriplets(mt.begin(), mt.end());
  return out;
}

}  // namespace mesh2dsp
