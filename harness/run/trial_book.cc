#include "harness/run/trial_book.h"

#include "harness/run/result_record.h"

namespace rpclab::harness {
namespace {

std::string cell_id_of(const nlohmann::json& r) { return r.at("cell").dump(); }

// Only an ok trial is done: a failed one runs again on --resume, and so
// does a skipped one (the cell skipped without root runs when resumed as
// root).
bool finished(const nlohmann::json& trial) { return trial.value("status", "") == "ok"; }

}  // namespace

TrialBook::TrialBook(const std::string& trials_path, const std::string& results_path,
                     std::vector<std::string>* warnings) {
  for (const nlohmann::json& t : read_records(trials_path, warnings))
    if (t.contains("trial")) trials_[{cell_id_of(t), t.value("trial", 0u)}] = t;
  for (const nlohmann::json& r : read_records(results_path, warnings)) add_cell(r);
}

void TrialBook::add_trial(const nlohmann::json& trial) {
  std::pair<std::string, uint32_t> key{cell_id_of(trial), trial.value("trial", 0u)};
  trials_[key] = trial;
  if (trial.value("status", "") == "failed") failed_now_.insert(key);
  if (trial.value("status", "") == "skipped") skipped_now_.insert(key.first);
}

void TrialBook::add_cell(const nlohmann::json& record) {
  cells_.push_back(record);
  std::string status = record.value("status", "");
  bool trials_failed = record.contains("trials_failed") && !record.at("trials_failed").empty();
  cell_done_[cell_id_of(record)] = status == "ok" && !trials_failed;
}

bool TrialBook::cell_done(const std::string& cell_id) const {
  auto it = cell_done_.find(cell_id);
  return it != cell_done_.end() && it->second;
}

bool TrialBook::trial_done(const std::string& cell_id, uint32_t trial) const {
  auto it = trials_.find({cell_id, trial});
  return it != trials_.end() && finished(it->second);
}

bool TrialBook::cell_skipped(const std::string& cell_id) const { return skipped_now_.count(cell_id) > 0; }

bool TrialBook::cell_complete(const std::string& cell_id, uint32_t trials) const {
  if (cell_skipped(cell_id)) return true;
  for (uint32_t t = 1; t <= trials; ++t)
    if (!trial_done(cell_id, t) && !failed_now_.count({cell_id, t})) return false;
  return true;
}

std::vector<nlohmann::json> TrialBook::trials_of(const std::string& cell_id) const {
  std::vector<nlohmann::json> list;
  for (auto it = trials_.lower_bound({cell_id, 0}); it != trials_.end() && it->first.first == cell_id; ++it)
    list.push_back(it->second);
  return list;
}

}  // namespace rpclab::harness
