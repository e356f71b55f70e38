// The record types (harness/record/): every record of real runs read into
// them and written again is the line it was, so the writers that build the
// types write what they wrote before; records of older builds read (and
// stay what they were); a record of a newer version is refused, saying
// which file, which line and what this build reads.
#include <gtest/gtest.h>

#include <fstream>
#include <string>
#include <vector>

#include "common/atomic_file.h"
#include "harness/record/cell_record.h"
#include "harness/record/records_file.h"
#include "harness/record/run_metadata.h"
#include "support/temp_dir.h"

namespace rpclab::harness {
namespace {

using nlohmann::json;

const std::string kFixtures = RPCLAB_SOURCE_DIR "/tests/harness/fixtures/";

std::vector<json> lines_of(const std::string& path) {
  std::vector<json> out;
  std::ifstream in(path);
  for (std::string line; std::getline(in, line);)
    if (!line.empty()) out.push_back(json::parse(line));
  return out;
}

template <typename Record>
void expect_round_trip(const std::string& path) {
  std::vector<json> lines = lines_of(path);
  ASSERT_FALSE(lines.empty()) << path;
  for (size_t i = 0; i < lines.size(); ++i) {
    json again = lines[i].get<Record>();
    EXPECT_EQ(again, lines[i]) << path << ":" << i + 1 << " read and written again differs: "
                               << json::diff(lines[i], again).dump();
  }
}

// Cells of every kind a run makes (fixtures/views/: ok, skipped, with
// faults, a cascade, timed events, sockperf, Allman's, Kiraly's, the
// at-most-once workload) and trials of each (fixtures/records/).
TEST(Records, RealRecordsReadAndWrittenAgainAreTheSame) {
  expect_round_trip<CellRecord>(kFixtures + "views/dependability/results.jsonl");
  expect_round_trip<CellRecord>(kFixtures + "views/speed/results.jsonl");
  expect_round_trip<TrialRecord>(kFixtures + "records/trials.jsonl");
}

// Records of 2026-11-22, before trials, over_trials, the server's CPU load,
// clients_with_silent_errors and rates_per_million.extra_executions: they
// read, and a record read and written again keeps to the fields it had.
TEST(Records, OlderRecordsReadAndKeepTheirShape) {
  std::string path = RPCLAB_SOURCE_DIR "/tests/fuzz/corpus/result_records/quick-clean.jsonl";
  expect_round_trip<CellRecord>(path);
  std::vector<std::string> warnings;
  std::vector<CellRecord> records = read_cell_records(path, &warnings);
  ASSERT_EQ(records.size(), 3u);
  EXPECT_TRUE(warnings.empty());
  const CellRecord& r = records.front();
  EXPECT_FALSE(r.dependability.over_trials);
  EXPECT_FALSE(r.dependability.topology_place.present) << "topology_place absent: left out, not null";
  EXPECT_FALSE(r.dependability.classes->clients_with_silent_errors);
  EXPECT_FALSE(r.dependability.rates_per_million->extra_executions);
  EXPECT_TRUE(r.cell.config.settings.empty()) << "a cell from before settings: none set";
  EXPECT_EQ(r.dependability.classes->calls, 200u);
}

// An interval of the rule of three (records before issue 10) reads as it is.
TEST(Records, RuleOfThreeIntervalsRead) {
  json line = lines_of(RPCLAB_SOURCE_DIR "/tests/fuzz/corpus/result_records/quick-clean.jsonl").front();
  line["silent_per_million"] = {{"value", 0.0}, {"ci95_low", 0.0}, {"ci95_high", 15000.0}, {"method", "rule-of-three"}};
  CellRecord r = line.get<CellRecord>();
  EXPECT_EQ(r.dependability.silent_per_million->method, "rule-of-three");
  EXPECT_EQ(json(r), line);
}

// A field this build does not know (a newer build of version 1 added it)
// is kept, so --resume and the CSV keep it too.
TEST(Records, UnknownFieldsAreKept) {
  json line = lines_of(kFixtures + "views/speed/results.jsonl").front();
  line["added_later"] = {{"x", 1}};
  EXPECT_EQ(json(line.get<CellRecord>()), line);
  json trial = lines_of(kFixtures + "records/trials.jsonl").front();
  trial["added_later"] = 2;
  EXPECT_EQ(json(trial.get<TrialRecord>()), trial);
}

// A cell that did not run carries every stable field, as null, and reads
// back as having none of those figures.
TEST(Records, AStableFieldOfACellThatDidNotRunIsNull) {
  CellConfig cell;
  cell.experiment = "speed";
  cell.transport = "raw-udp";
  CellRecord skipped = CellRecord::begin(cell, "test");
  skipped.status = "skipped";
  keep_stable_fields(skipped);
  json j = skipped;
  for (const char* k : {"p50_us", "calls_per_s", "ratio_to_floor", "size", "trials", "latency_pinned"})
    EXPECT_TRUE(j.at(k).is_null()) << k;
  EXPECT_TRUE(j.at("cpu_us_per_call").at("client").is_null());
  CellRecord back = j.get<CellRecord>();
  EXPECT_FALSE(back.speed.latency.p50_us);
  EXPECT_FALSE(back.speed.cpu_us_per_call);
  EXPECT_EQ(json(back), j);
  cell.experiment = "dependability";
  cell.faults.dup_pct = 5;
  CellRecord failed = CellRecord::begin(cell, "test");
  failed.status = "failed";
  keep_stable_fields(failed);
  j = failed;
  EXPECT_TRUE(j.at("calls").is_null());
  EXPECT_TRUE(j.at("classes").at("silent_loss").is_null());
  EXPECT_TRUE(j.at("silent_per_million").at("value").is_null());
  EXPECT_EQ(j.at("faults").at("backend"), "not chosen");
  EXPECT_EQ(j.at("faults").at("dup_pct"), 5.0);
  back = j.get<CellRecord>();
  EXPECT_FALSE(back.dependability.classes);
  EXPECT_FALSE(back.dependability.silent_per_million);
  EXPECT_EQ(json(back), j);
}

// A record of a newer version than this build reads stops the reading
// with the file, the line and the version this build reads; a line that
// is not a record is skipped with a warning, as a torn one always was.
TEST(Records, ANewerVersionIsRefusedAndALineThatIsNoRecordSkipped) {
  test::TempDir dir;
  json line = lines_of(kFixtures + "views/dependability/results.jsonl").front();
  json newer = line;
  newer["version"] = 2;
  json no_version = line;
  no_version.erase("version");
  std::string path = dir.file("results.jsonl");
  write_file_atomically(path, line.dump() + "\n" + no_version.dump() + "\n{\"torn\n" + newer.dump() + "\n");
  std::vector<std::string> warnings;
  try {
    read_cell_records(path, &warnings);
    FAIL() << "a version 2 record was read";
  } catch (const RecordVersionError& e) {
    EXPECT_PRED_FORMAT2(testing::IsSubstring, path + ":4: a record of version 2", e.what());
    EXPECT_PRED_FORMAT2(testing::IsSubstring, "reads records of version 1", e.what());
  }
  EXPECT_THROW(check_record_versions(path), RecordVersionError);
  write_file_atomically(path, line.dump() + "\n" + no_version.dump() + "\n{\"torn\n");
  warnings.clear();
  EXPECT_EQ(read_cell_records(path, &warnings).size(), 1u);
  ASSERT_EQ(warnings.size(), 2u);
  EXPECT_PRED_FORMAT2(testing::IsSubstring, path + ":2: skipped", warnings[0]);
  EXPECT_NO_THROW(check_record_versions(path));
}

// A damaged count is refused, not read as another number: a float where a
// count goes (nlohmann casts it, undefined beyond the type's range: the
// fuzzer's 5e46), a negative count, a float in a list of counts; and a
// line nested deeper than any record (nlohmann's dump and == recurse).
// Each is skipped with a warning that says why; the good line reads.
TEST(Records, ACountThatIsNoIntegerOfItsRangeOrALineNestedTooDeepIsSkipped) {
  test::TempDir dir;
  json line = lines_of(kFixtures + "views/dependability/results.jsonl").front();
  ASSERT_TRUE(line["episodes"].contains("onsets_per_trial")) << "the fixture's first cell changed";
  json huge = line, negative = line, in_list = line;
  huge["calls"] = 5.11111e46;
  negative["calls"] = -1;
  in_list["episodes"]["onsets_per_trial"] = json::array({1.5});
  std::string deep = "{\"version\":1,\"cell\":" + std::string(100, '[') + std::string(100, ']') + "}";
  std::string path = dir.file("results.jsonl");
  write_file_atomically(path, line.dump() + "\n" + huge.dump() + "\n" + negative.dump() + "\n" + in_list.dump() +
                                  "\n" + deep + "\n");
  std::vector<std::string> warnings;
  EXPECT_EQ(read_cell_records(path, &warnings).size(), 1u);
  ASSERT_EQ(warnings.size(), 4u);
  EXPECT_PRED_FORMAT2(testing::IsSubstring, "expected an integer, found number", warnings[0]);
  EXPECT_PRED_FORMAT2(testing::IsSubstring, "out of the field's range", warnings[1]);
  EXPECT_PRED_FORMAT2(testing::IsSubstring, "expected an integer, found number", warnings[2]);
  EXPECT_PRED_FORMAT2(testing::IsSubstring, "nested deeper than 64 levels", warnings[3]);
  EXPECT_NO_THROW(check_record_versions(path));
}

TEST(Records, MetadataReadsAndWritesBackAsItWas) {
  std::ifstream in(kFixtures + "views/speed/metadata.json");
  json meta = json::parse(in);
  RunMetadata m = meta.get<RunMetadata>();
  EXPECT_EQ(m.experiment, "speed");
  EXPECT_TRUE(m.host && m.host->cpu_count);
  EXPECT_EQ(json(m), meta);
  EXPECT_FALSE(read_run_metadata(kFixtures + "no-such-file.json"));
}

}  // namespace
}  // namespace rpclab::harness
