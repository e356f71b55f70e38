#include "harness/run/trial_book.h"

#include "harness/record/records_file.h"

namespace rpclab::harness {

TrialBook::TrialBook(const std::string& trials_path, const std::string& results_path,
                     std::vector<std::string>* warnings) {
  for (const TrialRecord& t : read_trial_records(trials_path, warnings)) trials_[{t.cell.id(), t.trial}] = t;
  for (const CellRecord& r : read_cell_records(results_path, warnings)) add_cell(r);
}

void TrialBook::add_trial(const TrialRecord& trial) {
  std::pair<std::string, uint32_t> key{trial.cell.id(), trial.trial};
  trials_[key] = trial;
  if (trial.status == "failed") failed_now_.insert(key);
  if (trial.status == "skipped") skipped_now_.insert(key.first);
}

void TrialBook::add_cell(const CellRecord& record) {
  cells_.push_back(record);
  bool trials_failed = record.trials_failed && !record.trials_failed->empty();
  cell_done_[record.cell.id()] = record.ok() && !trials_failed;
}

bool TrialBook::cell_done(const std::string& cell_id) const {
  auto it = cell_done_.find(cell_id);
  return it != cell_done_.end() && it->second;
}

// Only an ok trial is done: a failed one runs again on --resume, and so
// does a skipped one (the cell skipped without root runs when resumed as
// root).
bool TrialBook::trial_done(const std::string& cell_id, uint32_t trial) const {
  auto it = trials_.find({cell_id, trial});
  return it != trials_.end() && it->second.ok();
}

bool TrialBook::cell_skipped(const std::string& cell_id) const { return skipped_now_.count(cell_id) > 0; }

bool TrialBook::cell_complete(const std::string& cell_id, uint32_t trials) const {
  if (cell_skipped(cell_id)) return true;
  for (uint32_t t = 1; t <= trials; ++t)
    if (!trial_done(cell_id, t) && !failed_now_.count({cell_id, t})) return false;
  return true;
}

std::vector<TrialRecord> TrialBook::trials_of(const std::string& cell_id) const {
  std::vector<TrialRecord> list;
  for (auto it = trials_.lower_bound({cell_id, 0}); it != trials_.end() && it->first.first == cell_id; ++it)
    list.push_back(it->second);
  return list;
}

}  // namespace rpclab::harness
