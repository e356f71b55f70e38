// Reading a run folder's records back: results.jsonl (a cell per line) and
// trials.jsonl (a trial per line), each line checked for its `version`.
#pragma once

#include <stdexcept>
#include <string>
#include <vector>

#include "harness/record/cell_record.h"
#include "harness/record/trial_record.h"

namespace rpclab::harness {

// A record of a newer version than this build reads: the whole file is
// refused, since a field it reads may mean something else there.
class RecordVersionError : public std::invalid_argument {
 public:
  using std::invalid_argument::invalid_argument;
};

// A run shipped with the docs (docs/results/runs/<run id>/, tools/ship-run.sh)
// keeps results.jsonl gzip'd beside its metadata.json; each reader below
// reads PATH, or PATH.gz where PATH is absent.
inline constexpr const char* kShippedSuffix = ".gz";
// PATH or PATH.gz is there: what makes a folder with metadata.json a run.
bool records_present(const std::string& path);

// One record per line. A line that is not a record (torn by a crash
// mid-write, not JSON, no `version` or `cell`, a damaged field) is skipped
// and reported through `warnings`, never fatal; the next append starts on
// a line of its own, so only that line is lost. A record of a version this
// build does not read throws RecordVersionError naming the file, the line
// and the version this build reads.
std::vector<CellRecord> read_cell_records(const std::string& path, std::vector<std::string>* warnings);
std::vector<TrialRecord> read_trial_records(const std::string& path, std::vector<std::string>* warnings);
// Only the versions: throws RecordVersionError as the readers above do.
void check_record_versions(const std::string& path);

// Whether a run folder holds a finished trial: a line in results.jsonl or
// trials.jsonl. A run stopped before its first trial ended has neither
// (only metadata.json and commands.log): nothing to report, all to resume.
bool any_trial_finished(const std::string& run_dir);

// Each cell's last record. A resumed run appends a new record for a cell
// that failed before (or had failed trials); results.jsonl keeps both, and
// the views show the newer one. In matrix order (`cell_index`) where the
// records say it, since shuffled trials finish their cells in any order;
// else in the order the cells first appear.
std::vector<CellRecord> latest_per_cell(const std::vector<CellRecord>& records);

}  // namespace rpclab::harness
