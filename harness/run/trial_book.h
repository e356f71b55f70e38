// What a run folder already holds, for the run loop: the latest record of
// every trial (trials.jsonl) and of every cell (results.jsonl), and which
// trials still have to run. A trial is done when it ended ok; a failed or
// skipped one runs again when the run is resumed. A cell is done when its
// record is ok with no failed trial.
#pragma once

#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "harness/record/cell_record.h"
#include "harness/record/trial_record.h"

namespace rpclab::harness {

class TrialBook {
 public:
  TrialBook() = default;
  // Reads both files; torn lines are skipped and reported in `warnings`.
  // Throws RecordVersionError (records_file.h) for records newer than this
  // build reads: a run is not resumed by an older rpclab.
  TrialBook(const std::string& trials_path, const std::string& results_path, std::vector<std::string>* warnings);

  void add_trial(const TrialRecord& trial);  // a newer record of the same trial replaces the older
  void add_cell(const CellRecord& record);

  bool cell_done(const std::string& cell_id) const;
  bool trial_done(const std::string& cell_id, uint32_t trial) const;
  // Every trial 1..trials has ended in this run or before (ok, or failed
  // in this run), or one was skipped in this run: the cell's record can be
  // made.
  bool cell_complete(const std::string& cell_id, uint32_t trials) const;
  bool cell_skipped(const std::string& cell_id) const;  // a trial was skipped in this run
  // The latest record of each of the cell's trials, by trial number.
  std::vector<TrialRecord> trials_of(const std::string& cell_id) const;
  const std::vector<CellRecord>& cell_records() const { return cells_; }

 private:
  std::map<std::pair<std::string, uint32_t>, TrialRecord> trials_;
  std::set<std::pair<std::string, uint32_t>> failed_now_;  // failed in this run: ended, not to be rerun now
  std::set<std::string> skipped_now_;                      // cells skipped in this run
  std::vector<CellRecord> cells_;                          // every cell record, in order
  std::map<std::string, bool> cell_done_;                  // by cell id, from its latest record
};

}  // namespace rpclab::harness
