// Seeded synthetic recordings drawn from a known cost model, so the fit can be checked against
// the truth it should recover (tests) and timed at any size (bench). The truth is a CostModel
// (usually fine bins sampled from smooth s(u) and w(u), see smooth_truth); each recorded range
// takes its true cost times a mean-one log-normal factor. Ranges either all share one length
// (a recording whose s/w split cannot be identified) or vary in length with gaps between some.
// Every draw comes from std::mt19937_64 through portable transforms, so equal seeds give equal
// recordings on every standard library.
#pragma once

#include <cstdint>
#include <vector>

#include "data/cost_model.h"
#include "data/cost_model_fit.h"

namespace millrace::data {

struct SyntheticRecordingOptions {
  Range span{0, 1'000'000};
  std::int64_t mean_length = 1'000;
  bool varied_lengths = false;  // lengths uniform in [mean/4, 7 mean/4] instead of all equal
  double gap_probability = 0;   // after each range, the chance of an unrecorded gap (length ~ mean/2)
  double noise_sigma = 0.05;    // log-normal sigma of the multiplicative noise (0: exact costs)
  std::uint64_t seed = 1;
};

// Ranges in order along the span (the last one may be shorter), with their noisy durations.
std::vector<Observation> synthetic_recording(const CostModel& truth, const SyntheticRecordingOptions& options);

// A truth of `bins` equal bins over `span`: start-up rising linearly from 20 s to 60 s, and a
// work density of 40 ms per unit (so on 1,000-unit ranges work and start-up are alike) swinging
// +-60% over three waves, with one hot stretch (4x, a twentieth of the span wide) at 70%.
CostModel smooth_truth(const Range& span, int bins);

}  // namespace millrace::data
