#include "cli/fitted_cluster.h"

#include <optional>
#include <vector>

#include "data/model_file.h"

namespace millrace::cli {

namespace {

std::string joined(const std::vector<std::string>& parts) {
  std::string text;
  for (const std::string& part : parts) text += (text.empty() ? "" : ", ") + part;
  return text;
}

}  // namespace

ClusterSource cluster_source(const std::string& model_path, bool startup_given, bool fail_prob_given) {
  ClusterSource source;
  std::vector<std::string> typed{"create/delete overhead and API windows (options)"};
  if (startup_given) typed.push_back("start-up (--startup-latency)");
  if (fail_prob_given) typed.push_back("failures (--fail-prob)");
  std::optional<data::ClusterModel> model;
  if (!model_path.empty()) model = data::load_cluster_model(model_path);
  if (!model) {
    source.text = "cluster: typed in" + std::string(model_path.empty() ? "" : " (" + model_path + " has no fitted cluster)");
    return source;
  }
  if (startup_given) {
    model->startup = {};
    model->startup.unidentified = "replaced by --startup-latency";
  }
  if (fail_prob_given) {
    model->failures = {};
    model->failures.unidentified = "replaced by --fail-prob";
  }
  std::vector<std::string> fitted;
  if (model->placement.identified()) fitted.push_back("placement residual");
  if (model->startup.identified()) fitted.push_back("start-up");
  if (model->worker_gap.identified()) fitted.push_back("worker gap");
  if (model->failures.identified()) fitted.push_back("failures");
  if (model->provisioning.identified()) {
    fitted.push_back("node provisioning (pools whose --node-pools file gives no provision_delay)");
    typed.push_back("node provisioning (provision_delay where the --node-pools file gives it)");
  }
  if (model->interruptions.identified()) {
    fitted.push_back("spot interruption rates (spot pools whose --node-pools file gives no interruption_rate)");
  }
  if (!startup_given && !model->startup.identified()) typed.push_back("start-up (--startup-latency: not identified in the fit)");
  if (!fail_prob_given && !model->failures.identified()) typed.push_back("failures (--fail-prob: not identified in the fit)");
  source.text = "cluster: fitted in " + model_path + " (" + model->source + "): " +
                (fitted.empty() ? std::string("nothing identified") : joined(fitted)) + "; typed in: " + joined(typed);
  source.fitted = std::make_shared<const data::ClusterModel>(std::move(*model));
  return source;
}

}  // namespace millrace::cli
