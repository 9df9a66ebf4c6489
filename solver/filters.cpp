#include "filters.hpp"

#include <cmath>

#include "util/error.hpp"

namespace mesh2dsp {

double windowed_sinc(double t, double cutoff_hz, double half_width_s) {
  const double u = t / half_width_s;
  if (std::abs(u) > 1) return 0;
  const double window = 0.5 + 0.5 * std::cos(M_PI * u);  // eq. 8
  const double sinc = std::abs(t) < 1e-300 ? 2 * cutoff_hz
                                           : std::sin(2 * M_PI * cutoff_hz * t) / (M_PI * t);  // eq. 7
  return sinc * window;  // eq. 6
}

SincDecimator::SincDecimator(int channels, double dt_s, double sample_rate_hz, double cutoff_hz,
                             const Eigen::VectorXd& history)
    : channels_(channels), dt_s_(dt_s), sample_rate_hz_(sample_rate_hz), cutoff_hz_(cutoff_hz),
      history_(history) {
  if (!(dt_s > 0) || !(sample_rate_hz > 0) || !(cutoff_hz > 0))
    throw Error("low-pass: time step, sample rate and cutoff must be positive");
  half_width_s_ = 3.0 / cutoff_hz;  // three wavelengths of f_max (§3.2)
  half_width_steps_ = static_cast<int>(std::ceil(half_width_s_ / dt_s));  // w = ⌈3/(f_max Δt)⌉
  capacity_ = 2 * half_width_steps_ + 3;
  ring_.resize(channels, capacity_);
  weights_.resize(capacity_);
}

void SincDecimator::push(const Eigen::VectorXd& frame) {
  ring_.col(pushed_ % capacity_) = frame;
  ++pushed_;
}

bool SincDecimator::pop(Eigen::VectorXd& out) {
  const double t = static_cast<double>(next_audio_) / sample_rate_hz_;
  // Steps within the support: n ∈ [first, last].
  const long long first = static_cast<long long>(std::ceil((t - half_width_s_) / dt_s_ - 1e-9));
  const long long last = static_cast<long long>(std::floor((t + half_width_s_) / dt_s_ + 1e-9));
  if (last >= pushed_ && !finished_) return false;
  if (pushed_ == 0) return false;
  out.setZero(channels_);
  double sum = 0;
  for (long long n = first; n <= last; ++n) {
    const double k = windowed_sinc(t - static_cast<double>(n) * dt_s_, cutoff_hz_, half_width_s_);
    sum += k;
    if (n < 0)
      out += k * history_;
    else if (n >= pushed_)
      out += k * ring_.col((pushed_ - 1) % capacity_);
    else
      out += k * ring_.col(n % capacity_);
  }
  out /= sum;  // the normalised kernel: unit gain at DC
  ++next_audio_;
  return true;
}

DcBlocker::DcBlocker(int channels, double alpha)
    : alpha_(alpha), previous_in_(Eigen::VectorXd::Zero(channels)),
      previous_out_(Eigen::VectorXd::Zero(channels)) {
  if (!(alpha >= 0 && alpha <= 1)) throw Error("--dc-alpha must lie between 0 and 1");
}

void DcBlocker::process(Eigen::VectorXd& frame) {
  if (!started_) {
    previous_in_ = frame;
    started_ = true;
  }
  // eq. 9: differentiate, then re-integrate with a lossy integrator.
  const Eigen::VectorXd out = (1 - alpha_) * previous_out_ + (frame - previous_in_);
  previous_in_ = frame;
  previous_out_ = out;
  frame = out;
}

}  // namespace mesh2dsp
