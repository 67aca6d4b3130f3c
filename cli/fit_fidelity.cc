#include "cli/fit_fidelity.h"

#include <iomanip>
#include <map>
#include <sstream>

#include "data/error.h"
#include "data/readable_duration.h"
#include "data/run_summary.h"
#include "partitioners/list_schedule.h"

namespace millrace::cli {

double FitFidelity::makespan_error() const {
  return static_cast<double>(model_makespan - recorded_makespan) / static_cast<double>(recorded_makespan);
}

double FitFidelity::longest_error() const {
  return static_cast<double>(model_longest - recorded_longest) / static_cast<double>(recorded_longest);
}

FitFidelity check_fidelity(const data::Run& run, const std::vector<data::WorkItem>& items,
                           const std::vector<data::Attempt>& attempts, const data::CostModel& model) {
  std::map<std::string, data::Micros> recorded;  // the last succeeded attempt of each item
  for (const data::Attempt& attempt : attempts) {
    if (attempt.outcome == data::Outcome::kSucceeded) recorded[attempt.item_id] = attempt.duration();
  }
  FitFidelity out{run.name, static_cast<int>(data::summarize(items, attempts).workers), 0, 0, {}, 0, {}, 0};
  if (out.workers == 0) throw data::Error("run " + run.name, "no named worker recorded: cannot replay the recorded partition");
  std::vector<double> recorded_costs, model_costs;
  for (const data::WorkItem& item : items) {
    const auto it = recorded.find(item.id);
    if (!item.range || it == recorded.end()) continue;
    const data::Micros predicted = model.predict(*item.range);
    recorded_costs.push_back(static_cast<double>(it->second));
    model_costs.push_back(static_cast<double>(predicted));
    if (it->second > out.recorded_longest) {
      out.recorded_longest = it->second;
      out.recorded_longest_range = *item.range;
    }
    if (predicted > out.model_longest) {
      out.model_longest = predicted;
      out.model_longest_range = *item.range;
    }
  }
  if (recorded_costs.empty() || out.recorded_longest == 0) {
    throw data::Error("run " + run.name, "no succeeded range with a positive duration: nothing to check the model against");
  }
  out.recorded_makespan = static_cast<data::Micros>(partitioners::list_makespan(recorded_costs, out.workers));
  out.model_makespan = static_cast<data::Micros>(partitioners::list_makespan(model_costs, out.workers));
  return out;
}

std::string format_fidelity(const FitFidelity& f) {
  using data::readable_duration;
  std::ostringstream out;
  out << std::fixed << std::setprecision(2);
  out << "fidelity on run " << f.run << " (recorded plan order, " << f.workers << " workers):\n"
      << "  makespan of the recorded partition list-scheduled: with model durations "
      << readable_duration(f.model_makespan) << " vs with the recorded durations "
      << readable_duration(f.recorded_makespan) << " (" << std::showpos << 100 * f.makespan_error() << std::noshowpos
      << "%)\n"
      << "  longest range: model " << readable_duration(f.model_longest) << " (" << f.model_longest_range.text()
      << ") vs recorded " << readable_duration(f.recorded_longest) << " (" << f.recorded_longest_range.text()
      << ", " << std::showpos << 100 * f.longest_error() << std::noshowpos << "%)\n";
  return out.str();
}

nlohmann::json fidelity_json(const FitFidelity& f) {
  return {{"run", f.run},
          {"workers", f.workers},
          {"recorded_makespan_s", data::seconds_from_micros(f.recorded_makespan)},
          {"model_makespan_s", data::seconds_from_micros(f.model_makespan)},
          {"makespan_error", f.makespan_error()},
          {"recorded_longest_s", data::seconds_from_micros(f.recorded_longest)},
          {"recorded_longest_range", f.recorded_longest_range.end_count()},
          {"model_longest_s", data::seconds_from_micros(f.model_longest)},
          {"model_longest_range", f.model_longest_range.end_count()},
          {"longest_error", f.longest_error()}};
}

}  // namespace millrace::cli
