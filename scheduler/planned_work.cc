#include "scheduler/planned_work.h"

#include <algorithm>

namespace millrace::scheduler {

namespace {

// Whether the columns say all there is to `item`: a range named by its END/COUNT form, nothing else.
bool plain_item(const data::WorkItem& item) {
  return item.range && item.payload.empty() && item.type == PlannedWork::kPlainType && item.depends_on.empty() &&
         item.priority == 0 && item.id == item.range->end_count();
}

// Sets item i's value in a column of `count` items that is kept only once some item has a value
// (not 0): the column is made at the first such value, items before it getting 0.
void set_in_column(std::vector<data::Micros>& column, std::size_t i, std::size_t count, data::Micros value) {
  if (value != 0 && column.empty()) column.assign(count, 0);
  if (!column.empty()) column[i] = value;
}

}  // namespace

PlannedWork::PlannedWork(const std::vector<data::WorkItem>& plan, const std::string& plan_name) {
  ranges_.reserve(plan.size());
  RequestIndex known;
  for (std::size_t i = 0; i < plan.size(); ++i) {
    const data::WorkItem& item = plan[i];
    ranges_.push_back(item.range.value_or(data::Range{}));
    set_in_column(predicted_, i, plan.size(), item.predicted);
    set_in_column(submit_at_, i, plan.size(), item.submit_at);
    if (!plain_item(item)) {
      if (whole_of_.empty()) whole_of_.assign(plan.size(), kPlain);
      whole_of_[i] = static_cast<std::uint32_t>(wholes_.size());
      data::WorkItem& whole = wholes_.emplace_back(item);
      whole.requests.clear();
      whole.predicted = 0;
      whole.submit_at = 0;
    }
    add_requests(i, plan.size(), item.requests, known);
  }
  graph_ = WorkGraph(*this, plan_name);
}

PlannedWork::PlannedWork(std::vector<data::Range> ranges, std::vector<data::Micros> predicted,
                         const std::vector<data::Quantities>& requests, const std::string& plan_name)
    : ranges_(std::move(ranges)), predicted_(std::move(predicted)) {
  if (std::all_of(predicted_.begin(), predicted_.end(), [](data::Micros p) { return p == 0; })) predicted_ = {};
  RequestIndex known;
  for (std::size_t i = 0; i < requests.size() && i < ranges_.size(); ++i) add_requests(i, size(), requests[i], known);
  graph_ = WorkGraph(*this, plan_name);
}

void PlannedWork::add_requests(std::size_t i, std::size_t count, const data::Quantities& requests,
                               RequestIndex& known) {
  if (requests.empty()) return;
  if (request_set_.empty()) request_set_.assign(count, 0);
  auto [found, added] = known.try_emplace(requests, static_cast<std::uint32_t>(request_sets_.size()));
  if (added) {
    request_sets_.push_back(requests);
    first_asking_.push_back(i);
  }
  request_set_[i] = found->second;
}

data::WorkItem PlannedWork::item(std::size_t i) const {
  data::WorkItem item;
  if (plain(i)) {
    item.id = ranges_[i].end_count();
    item.range = ranges_[i];
  } else {
    item = whole(i);
  }
  item.predicted = predicted(i);
  item.submit_at = submit_at(i);
  item.requests = requests(i);
  return item;
}

std::vector<data::WorkItem> PlannedWork::items() const {
  std::vector<data::WorkItem> all;
  all.reserve(size());
  for (std::size_t i = 0; i < size(); ++i) all.push_back(item(i));
  return all;
}

}  // namespace millrace::scheduler
