#pragma once
// Signal analysis for validation, on plain sample vectors (FFTW): magnitude spectra with
// interpolated peaks, Welch power spectra, spectrograms, band-energy decay (T60), onsets and
// cross-correlation. No knowledge of models or files: any test or tool may use it.
#include <cstddef>
#include <vector>

namespace mesh2dsp::signal {

// A one-sided magnitude spectrum, bins 0 .. n/2 of an n-point FFT.
struct Spectrum {
  std::vector<double> magnitude;
  double bin_hz = 0;

  double max() const;
  // Interpolated frequency (Hz) of the largest bin within [lo_hz, hi_hz] (parabola through the
  // log magnitudes of the three bins around it); -1 when that maximum sits on the band's edge,
  // i.e. there is no peak inside. `height` receives the largest magnitude.
  double peak_in(double lo_hz, double hi_hz, double* height = nullptr) const;
};

// Hann-windowed, zero-padded (×pad) magnitude spectrum of x[begin, begin + length).
// length 0: to the end. `from_onset`: the Hann's falling half only (1 at `begin`, 0 at the
// end), for a strike analysed from its onset: a full Hann weighs the loudest, first part of
// a decaying partial near zero and hides the fast-decaying ones. White noise keeps the same
// level under either (both windows' mean square is 3/8), so noise_magnitude applies to both.
Spectrum magnitude_spectrum(const std::vector<float>& x, double rate_hz, int pad = 4,
                            std::size_t begin = 0, std::size_t length = 0, bool from_onset = false);

struct Peak {
  double frequency_hz = 0;  // interpolated
  double level_db = 0;      // 20 log10 magnitude
  double prominence_db = 0; // above the higher of the two valleys next to it
};

// Local maxima at least `floor_db` below the spectrum's maximum at most, standing
// `min_prominence_db` above their surroundings (searched within ±`valley_span` relative
// frequency, so that a large spectrum stays O(n)), in [lo_hz, hi_hz], ascending.
std::vector<Peak> find_peaks(const Spectrum& s, double lo_hz, double hi_hz, double floor_db,
                             double min_prominence_db, double valley_span = 0.05);

// Welch power spectrum: mean |X|² of Hann frames of `frame` samples, hop frame/4.
Spectrum welch_power(const std::vector<float>& x, double rate_hz, std::size_t frame);

// Power in fractional-octave bands (1/bands_per_octave) from lo_hz to hi_hz: the mean of a
// power spectrum's bins in each band (bands without a bin are skipped). Returns the band
// centres and their levels in dB (10 log10, floored at 1e-30).
struct BandLevels {
  std::vector<double> centre_hz, level_db;
};
BandLevels band_levels(const Spectrum& power, double lo_hz, double hi_hz, int bands_per_octave);

// Short-time spectra (Hann frames of `frame` samples, hop `hop`): power[t][k], bin_hz, and the
// centre time of every frame.
struct Spectrogram {
  std::vector<std::vector<float>> power;
  std::vector<double> time_s;
  double bin_hz = 0;
  std::size_t frame = 0;
};
Spectrogram spectrogram(const std::vector<float>& x, double rate_hz, std::size_t frame,
                        std::size_t hop, std::size_t begin = 0);

// Decay of the energy in a band [lo_hz, hi_hz] of a spectrogram: the least-squares slope of
// 10 log10(band energy) against time from the band's maximum down to `range_db` below it (or
// to the last frame), as T60 = 60 dB / |slope| ("band-energy slope"; the envelope of one
// exponentially decaying mode, exp(-σt), falls by 60 dB in ln(1000)/σ). `frames_used` counts
// the fitted frames; `fit_range_db` is how far the band fell over them. T60 is infinite for
// a rising or flat band, 0 when fewer than 3 frames are usable.
// The energy in a band [lo_hz, hi_hz] of every frame of a spectrogram, dB (10 log10).
std::vector<double> band_energy_db(const Spectrogram& sg, double lo_hz, double hi_hz);

struct DecayFit {
  double t60_s = 0;
  double slope_db_per_s = 0;
  int frames_used = 0;
  double fit_range_db = 0;
  double r_squared = 0;
};
DecayFit band_decay(const Spectrogram& sg, double lo_hz, double hi_hz, double range_db = 40);

// First sample whose magnitude reaches `fraction` of the signal's peak magnitude; -1 if silent.
long long onset_sample(const std::vector<float>& x, double fraction = 0.1);

// Lag (samples) that best aligns b with a: a[n] ≈ s·b[n − lag], searched in ±max_lag by FFT
// cross-correlation of the first `window` samples; `polarity` receives the sign s.
long long best_lag(const std::vector<float>& a, const std::vector<float>& b, long long max_lag,
                   std::size_t window, int* polarity = nullptr);

// A recording made ready for comparison (issue 12, item 7): the DC offset removed (the mean),
// rumble removed (2nd-order Butterworth high-pass at `highpass_hz`, by the bilinear
// transform), the strike's onset found against the noise floor of the pre-roll (RMS of
// 2.5 ms frames: the median before the loudest frame is the floor; the onset is the first
// frame 20 dB above it and within 40 dB of the loudest, walked back while still 6 dB above),
// and that pre-roll kept as the noise segment [0, noise_length).
struct ConditionedRecording {
  std::vector<float> samples;
  long long onset = 0;
  long long noise_length = 0;  // 0: no usable pre-roll (< 50 ms)
  double noise_rms = 0;
};
ConditionedRecording condition_recording(const std::vector<float>& x, double rate_hz, double highpass_hz);

// The magnitude a stationary noise segment x[begin, begin + length) would show in
// magnitude_spectrum(·, pad) of an analysed segment `analysed_length` long, on `like`'s bins:
// its power averaged over ±`smooth` relative frequency, scaled by √(analysed/length).
std::vector<double> noise_magnitude(const std::vector<float>& x, double rate_hz, std::size_t begin,
                                    std::size_t length, std::size_t analysed_length, const Spectrum& like,
                                    double smooth = 0.02);

// The largest power of two ≤ n (at least 1): FFT frame lengths.
std::size_t power_of_two_at_most(double n);
// The spectrogram frame for band decays: ~85 ms (11.7 Hz bins at 48 kHz), shorter when the signal
// is short so that at least ~6 frames fit, within 256 … 16384 samples.
std::size_t decay_frame(double rate_hz, std::size_t length);

double rms(const std::vector<float>& x, std::size_t begin = 0, std::size_t length = 0);
double peak_abs(const std::vector<float>& x);

// Least-squares slope of y against x (and the fit's R²).
double fit_slope(const std::vector<double>& x, const std::vector<double>& y,
                 double* r_squared = nullptr);

}  // namespace mesh2dsp::signal
