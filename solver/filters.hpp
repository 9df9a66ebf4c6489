#pragma once
// The two filters of O'Brien, Cook & Essl 2001, §3.2, applied per channel (one channel per
// surface triangle for the pressure, three per surface vertex for positions — footnote 2):
//   - a windowed-sinc low-pass (eqs. 6–8) evaluated only at audio sample times, which is the
//     "convolve and sub-sample to audio rate" step, for any simulation step (the audio period
//     need not be a multiple of dt);
//   - the DC blocker (eq. 9) at audio rate.
#include <Eigen/Core>
#include <vector>

namespace mesh2dsp {

// Eqs. 6–8: K(t) = sinc(t)·win(t/W), sinc(t) = sin(2π f_max t)/(π t), win(u) = ½ + ½cos(πu)
// for |u| ≤ 1, with half-width W = 3/f_max (three wavelengths of f_max; the paper's
// w = ⌈3/(f_max Δt)⌉ steps).
double windowed_sinc(double t_s, double cutoff_hz, double half_width_s);

// Streams simulation frames (one value per channel at t = n·dt) in, and produces filtered
// frames at audio times j/fs as soon as the kernel's right half is available, i.e. with a
// latency of W. Memory: channels × (2w + 2) values, independent of the run's length.
class SincDecimator {
 public:
  // `history`: the value every channel had before t = 0 (frames at negative times).
  SincDecimator(int channels, double dt_s, double sample_rate_hz, double cutoff_hz,
                const Eigen::VectorXd& history);
  // Adds the frame for the next step (the first call is t = 0). Returns true when audio
  // frames became ready; read them with next_ready().
  void push(const Eigen::VectorXd& frame);
  // Fills `out` with the next audio frame if its kernel support is complete.
  bool pop(Eigen::VectorXd& out);
  // After the last push: lets frames whose support extends past the end be produced, the
  // missing future held at the last value.
  void finish() { finished_ = true; }
  long long produced() const { return next_audio_; }
  int half_width_steps() const { return half_width_steps_; }

 private:
  int channels_;
  double dt_s_, sample_rate_hz_, cutoff_hz_, half_width_s_;
  int half_width_steps_, capacity_;
  Eigen::MatrixXd ring_;  // channels × capacity; column (n mod capacity) holds step n
  Eigen::VectorXd history_;
  long long pushed_ = 0;     // steps received
  long long next_audio_ = 0;  // index of the next audio frame to produce
  bool finished_ = false;
  std::vector<double> weights_;
};

// Eq. 9: p̃ᵢ = (1 − α)·p̃ᵢ₋₁ + (gᵢ − gᵢ₋₁), per channel; state starts at rest (g₋₁ = g₀ so
// a signal that starts at a constant gives no step).
class DcBlocker {
 public:
  DcBlocker(int channels, double alpha);
  void process(Eigen::VectorXd& frame);  // in place

 private:
  double alpha_;
  bool started_ = false;
  Eigen::VectorXd previous_in_, previous_out_;
};

}  // namespace mesh2dsp
