#include "cluster_adapter/kubernetes/worker_pool/sweep_exchange.h"

namespace millrace::cluster_adapter {

void SweepExchange::add_bundle(const std::string& sha256, std::string bytes) {
  std::lock_guard lock(mutex_);
  bundles_[sha256] = std::make_shared<const std::string>(std::move(bytes));
}

std::shared_ptr<const std::string> SweepExchange::bundle(const std::string& sha256) const {
  std::lock_guard lock(mutex_);
  auto found = bundles_.find(sha256);
  return found == bundles_.end() ? nullptr : found->second;
}

void SweepExchange::expect_results(CheckResults check) {
  std::lock_guard lock(mutex_);
  check_ = std::move(check);
  results_.clear();
}

bool SweepExchange::expects_results() const {
  std::lock_guard lock(mutex_);
  return static_cast<bool>(check_);
}

void SweepExchange::check(const std::string& item_id, const nlohmann::json& results) const {
  CheckResults check;
  {
    std::lock_guard lock(mutex_);
    check = check_;
  }
  if (check) check(item_id, results);
}

void SweepExchange::keep(const std::string& item_id, nlohmann::json results) {
  std::lock_guard lock(mutex_);
  results_.try_emplace(item_id, std::move(results));
}

std::map<std::string, nlohmann::json> SweepExchange::results() const {
  std::lock_guard lock(mutex_);
  return results_;
}

}  // namespace millrace::cluster_adapter
