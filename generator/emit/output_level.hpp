#pragma once
// The emitted instrument's default output level: simulate a strike in double precision and
// choose the level that puts its peak where a user hears it (issue 11, item 8).
#include "emit/emit_model.hpp"

namespace mesh2dsp {

// Peak of the normalised bank's output (every output) for a strike of 1 N s at excitation
// point `point` with the emitted impact force (van den Doel & Pai 2003, eq. 7) of the given
// hardness, over the first `duration_s` at `rate_hz`. The same resonators as the emitted code.
double strike_peak(const EmitModel& model, int point, double hardness, double rate_hz = 48000,
                   double duration_s = 0.25);

// The excitation point whose strike peaks highest: the instrument's default point (the first
// automatic point may lie near a nodal line, or on a clamped face).
int loudest_point(const EmitModel& model, double hardness);

// The output level (applied with the instrument's gain slider at `default_gain`) that puts the
// default strike (the loudest point, `default_hardness`) at -6 dBFS, lowered if the same strike
// at hardness 1 would then peak above -1 dBFS (no clipping). 1 for a silent model.
double default_output_level(const EmitModel& model, double default_hardness, double default_gain);

}  // namespace mesh2dsp
