#include "sim/sweep_pool.h"

#include <algorithm>
#include <stdexcept>
#include <string>

namespace millrace::sim {

SweepPool::SweepPool(unsigned threads) : made_at_most_(std::max(1u, threads) + 1) {
  for (unsigned t = 0; t < std::max(1u, threads); ++t) threads_.emplace_back([this] { serve(); });
}

SweepPool::~SweepPool() {
  {
    const std::lock_guard<std::mutex> guard(lock_);
    stopping_ = true;
  }
  work_changed_.notify_all();
  for (std::thread& t : threads_) t.join();
}

void SweepPool::queue(int key, long rank, MakeRun make) {
  {
    const std::lock_guard<std::mutex> guard(lock_);
    std::shared_ptr<Entry>& entry = entries_[key];
    if (entry) {
      entry->rank = rank;
    } else {
      entry = std::make_shared<Entry>();
      entry->rank = rank;
      entry->order = queued_++;
      entry->make = std::move(make);
    }
  }
  work_changed_.notify_all();
}

bool SweepPool::queued(int key) const {
  const std::lock_guard<std::mutex> guard(lock_);
  return entries_.count(key) > 0;
}

void SweepPool::drop(int key) {
  {
    const std::lock_guard<std::mutex> guard(lock_);
    const auto found = entries_.find(key);
    if (found == entries_.end()) return;
    found->second->dropped = true;
    entries_.erase(found);
  }
  work_changed_.notify_all();  // its plans may be freed: another comparison may be made
}

Comparison SweepPool::wait(int key) {
  std::unique_lock<std::mutex> lock(lock_);
  const auto found = entries_.find(key);
  if (found == entries_.end()) throw std::logic_error("SweepPool::wait: comparison " + std::to_string(key) + " not queued");
  const std::shared_ptr<Entry> entry = found->second;
  work_changed_.wait(lock, [&] { return entry->done; });
  if (entry->error) std::rethrow_exception(entry->error);
  return *entry->result;
}

void SweepPool::serve() {
  std::unique_lock<std::mutex> lock(lock_);
  while (!stopping_) {
    const std::optional<Work> work = next_work();
    if (!work) {
      work_changed_.wait(lock);
    } else if (work->task) {
      run_task(*work->entry, *work->task, lock);
    } else {
      make(*work->entry, lock);
    }
  }
}

std::optional<SweepPool::Work> SweepPool::next_work() {
  std::vector<std::shared_ptr<Entry>> open;
  for (const auto& [key, entry] : entries_) {
    if (!entry->done && !entry->busy) open.push_back(entry);
  }
  std::sort(open.begin(), open.end(), [](const auto& a, const auto& b) {
    return a->rank != b->rank ? a->rank < b->rank : a->order < b->order;
  });
  for (const std::shared_ptr<Entry>& entry : open) {
    if (!entry->run) {
      if (holding_ >= made_at_most_ && entry != open.front()) continue;
      ++holding_;
      entry->busy = true;
      return Work{entry, std::nullopt};
    }
    if (const std::optional<std::size_t> task = entry->run->take()) return Work{entry, task};
  }
  return std::nullopt;
}

void SweepPool::make(Entry& entry, std::unique_lock<std::mutex>& lock) {
  lock.unlock();
  std::shared_ptr<ComparisonRun> run;
  std::exception_ptr error;
  try {
    run = std::shared_ptr<ComparisonRun>(entry.make().release(), [this](ComparisonRun* made) {
      delete made;
      --holding_;
    });
  } catch (...) {
    --holding_;
    error = std::current_exception();
  }
  lock.lock();
  entry.busy = false;
  entry.make = nullptr;
  if (error) {
    entry.error = error;
    entry.done = true;
  } else if (!entry.dropped) {
    entry.run = std::move(run);
    if (entry.run->tasks() == 0) finish(entry, lock);
  }
  work_changed_.notify_all();
}

void SweepPool::run_task(Entry& entry, std::size_t task, std::unique_lock<std::mutex>& lock) {
  lock.unlock();
  entry.run->run(task);
  lock.lock();
  if (entry.run->finished(task)) {
    if (entry.dropped) {
      entry.run.reset();
    } else {
      finish(entry, lock);
    }
  }
  work_changed_.notify_all();
}

void SweepPool::finish(Entry& entry, std::unique_lock<std::mutex>& lock) {
  entry.busy = true;
  lock.unlock();
  try {
    entry.result = entry.run->finish();
  } catch (...) {
    entry.error = std::current_exception();
  }
  lock.lock();
  entry.run.reset();
  entry.busy = false;
  entry.done = true;
}

}  // namespace millrace::sim
