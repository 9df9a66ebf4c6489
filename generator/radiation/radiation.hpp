#pragma once
// Sound radiation from a vibrating triangulated surface to point listeners (O'Brien, Cook &
// Essl 2001, §3.2). Only geometry and plain Eigen types here: the reference
// solver radiates with it, and the analysis computes per-mode listener gains
// (listener_gains.hpp) with exactly the same weights.
//
// Per surface triangle k and listener r (eq. 10):   s_k = p̃_k · a_k · δ_k · cos θ_k / ‖x̄_k − r‖
// arriving after d_k = ‖x̄_k − r‖ / c (eq. 11). `weight` below is a_k·δ_k·cos θ_k/‖x̄_k − r‖
// (m), so a listener's signal is Σ_k weight_k · p̃_k(t − d_k). As in the paper the result is
// eq. 10's quantity (Pa·m); no extra 1/(4π) or time derivative is applied.
#include <Eigen/Core>
#include <Eigen/Geometry>
#include <vector>

namespace mesh2dsp {

// Air at 20 °C, one atmosphere (O'Brien, Cook & Essl 2001, §3.2, after Kinsler et al.).
inline constexpr double kAirDensityKgM3 = 1.21;
inline constexpr double kSpeedOfSoundMS = 343.0;
inline constexpr double kAirImpedancePaSM = 415.0;  // z = ρc (eq. 2)

// Area (eq. 3), unit normal (eq. 4) and centre of every triangle.
struct TriangleGeometry {
  Eigen::MatrixXd centres;  // F × 3
  Eigen::MatrixXd normals;  // F × 3, unit, outward for outward-oriented faces
  Eigen::VectorXd areas_m2;
};
TriangleGeometry triangle_geometry(const Eigen::MatrixXd& vertices, const Eigen::MatrixXi& faces);

// Visibility δ of eq. 10: true when the segment from the triangle's centre (nudged off the
// surface along its normal) to the listener crosses no other triangle of `faces`, and the
// listener is in front of the triangle (cos θ > 0). Brute-force ray casting, O(F²); parallel.
std::vector<char> triangle_visibility(const Eigen::MatrixXd& vertices, const Eigen::MatrixXi& faces,
                                      const TriangleGeometry& geometry,
                                      const Eigen::Vector3d& listener_m);

struct RadiationWeights {
  Eigen::VectorXd weight_m;  // a·δ·cos θ / r per triangle (0 when not visible)
  Eigen::VectorXd delay_s;   // r / c per triangle (eq. 11)
  std::vector<char> visible;
};

// Weights for one listener; `visible` may be passed in (the solver recomputes geometry at
// audio rate but visibility only when the shape changes appreciably). When `visible` is null
// it is ray-cast here.
RadiationWeights radiation_weights(const Eigen::MatrixXd& vertices, const Eigen::MatrixXi& faces,
                                   const Eigen::Vector3d& listener_m,
                                   const std::vector<char>* visible = nullptr,
                                   double speed_of_sound_m_s = kSpeedOfSoundMS);
RadiationWeights radiation_weights(const TriangleGeometry& geometry,
                                   const std::vector<char>& visible,
                                   const Eigen::Vector3d& listener_m,
                                   double speed_of_sound_m_s = kSpeedOfSoundMS);

// Eq. 5: the pressure z·v̄·n̂ on each triangle from the velocities of the mesh's nodes
// (`velocity` is 3N, DOF 3·node + c, as the FEM core lays it out; faces index nodes).
Eigen::VectorXd triangle_pressure(const Eigen::MatrixXi& faces, const TriangleGeometry& geometry,
                                  const Eigen::VectorXd& velocity,
                                  double impedance_pa_s_m = kAirImpedancePaSM);

// Eq. 10 summed over triangles without delay: the instantaneous pressure at the listener for
// per-triangle pressures `pressure_pa`. For a mode shape φ (3N), pass triangle_pressure(φ):
// the result is the listener gain per unit modal velocity the generator needs.
double pressure_at_listener(const Eigen::VectorXd& pressure_pa, const RadiationWeights& weights);

// Listener gain of a mode: Σ_k weight_k · z · (φ̄_k · n̂_k) (pressure per unit modal velocity).
double modal_listener_gain(const Eigen::MatrixXd& vertices, const Eigen::MatrixXi& faces,
                           const Eigen::VectorXd& mode_shape, const RadiationWeights& weights,
                           double impedance_pa_s_m = kAirImpedancePaSM);

// The paper's 1-D accumulation buffer (Fig. 4): contributions arriving at a fractional time
// are splatted with a narrow Gaussian (two samples wide) so that changing delays do not buzz.
class AccumulationBuffer {
 public:
  AccumulationBuffer(double sample_rate_hz, int samples);
  // Adds `value` centred at `time_s` (contributions outside the buffer are dropped).
  void splat(double time_s, double value);
  // The same splat split in two: the kernel for a delay (computed once when the delay is
  // fixed), then added at audio sample `sample` + delay.
  struct Kernel {
    int offset = 0;  // first sample relative to the current one
    double weights[6] = {};
  };
  Kernel kernel(double delay_s) const;
  void add(long long sample, const Kernel& kernel, double value) {
    const long long first = sample + kernel.offset;
    if (first >= 0 && first + 6 <= static_cast<long long>(samples_.size())) {
      double* out = samples_.data() + first;
      for (int i = 0; i < 6; ++i) out[i] += value * kernel.weights[i];
    } else {
      for (int i = 0; i < 6; ++i)
        if (first + i >= 0 && first + i < static_cast<long long>(samples_.size()))
          samples_[first + i] += value * kernel.weights[i];
    }
  }
  const std::vector<double>& samples() const { return samples_; }
  double sample_rate_hz() const { return sample_rate_hz_; }

 private:
  double sample_rate_hz_;
  std::vector<double> samples_;
};

// --stereo (§4): two listeners 20 cm apart on the horizontal axis perpendicular to the view
// direction (from `listener_m` towards `target_m`). "Horizontal" is perpendicular to +y
// (the usual up axis of graphics), or to +z when the view is along y.
std::pair<Eigen::Vector3d, Eigen::Vector3d> stereo_pair(const Eigen::Vector3d& listener_m,
                                                        const Eigen::Vector3d& target_m,
                                                        double separation_m = 0.20);

}  // namespace mesh2dsp
