// The floor plan as a test: tools/tree-check.py holds on this tree, and
// it can fail. Each broken tree is planted in a temporary folder with
// --root: a couple of files, laid out like the project's, that make one
// thing wrong, so the check must name that thing. The picture of the rooms
// in docs/images/ must be the one the check draws today.
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "support/process.h"
#include "support/temp_dir.h"

namespace rpclab::test {
namespace {

const std::string kSource = RPCLAB_SOURCE_DIR;
const std::string kScript = kSource + "/tools/tree-check.py";

ProcessResult tree_check(const std::vector<std::string>& args) {
  std::vector<std::string> argv = {"python3", kScript};
  argv.insert(argv.end(), args.begin(), args.end());
  return run_program(argv);
}

std::string read_file(const std::string& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

// A tree for --root, file by file.
class PlantedTree {
 public:
  PlantedTree& file(const std::string& path, const std::string& text = "") {
    dir_.plant(path, text);
    return *this;
  }
  // `path` including each of `headers`.
  PlantedTree& includes(const std::string& path, const std::vector<std::string>& headers) {
    std::string text;
    for (const std::string& h : headers) text += "#include \"" + h + "\"\n";
    return file(path, text);
  }
  ProcessResult check() const { return tree_check({"--root", dir_.path()}); }

 private:
  TempDir dir_;
};

TEST(TreeCheck, ThisTreeFollowsItsPlan) {
  ProcessResult r = tree_check({});
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_NE(r.out.find("no include circle between files or folders"), std::string::npos) << r.out;
}

// The control for the planted trees below: rooms laid out as the plan
// says pass, so what fails there is what was planted.
TEST(TreeCheck, APlantedTreeThatFollowsThePlanPasses) {
  PlantedTree t;
  t.includes("netem/spec/fault_spec.h", {})
      .includes("netem/spec/fault_spec.cc", {"netem/spec/fault_spec.h"})
      .includes("netem/faults/fault_backend.h", {"netem/spec/fault_spec.h"})
      .includes("netem/events/event_runner.cc", {"netem/faults/fault_backend.h"});
  ProcessResult r = t.check();
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
}

// An adapter is written against docs/adapters.md alone: it includes no
// header of rpclab's, by the root's path, src/'s, or a relative one; its
// own headers and its library's are fine.
TEST(TreeCheck, AnAdapterThatIncludesRpclabFailsNamingTheLine) {
  PlantedTree t;
  t.includes("src/server/ledger.h", {})
      .includes("adapters/demo/flags.h", {})
      .file("adapters/demo/server.cc", "#include <thrift/transport/TSocket.h>\n#include \"flags.h\"\n"
                                       "#include \"server/ledger.h\"\n#include \"../../src/common/version.h\"\n");
  ProcessResult r = t.check();
  EXPECT_EQ(r.exit_code, 1) << r.out << r.err;
  EXPECT_NE(r.out.find("adapters/demo/server.cc:3 includes server/ledger.h: an adapter includes nothing of rpclab's"),
            std::string::npos) << r.out;
  EXPECT_NE(r.out.find("adapters/demo/server.cc:4 includes ../../src/common/version.h"), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("TSocket"), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("flags.h"), std::string::npos) << r.out;
}

TEST(TreeCheck, ACircleBetweenFilesFailsNamingTheUnitsAndTheIncludes) {
  PlantedTree t;
  t.includes("netem/spec/fault_spec.h", {"netem/spec/fault_fields.h"})
      .includes("netem/spec/fault_spec.cc", {"netem/spec/fault_spec.h"})
      .includes("netem/spec/fault_fields.h", {})
      .includes("netem/spec/fault_fields.cc", {"netem/spec/fault_fields.h", "netem/spec/fault_spec.h"});
  ProcessResult r = t.check();
  EXPECT_EQ(r.exit_code, 1) << r.out << r.err;
  EXPECT_NE(r.out.find("include circle between files: netem/spec/fault_fields <-> netem/spec/fault_spec"),
            std::string::npos) << r.out;
  EXPECT_NE(r.out.find("netem/spec/fault_fields.cc includes netem/spec/fault_spec.h"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("netem/spec/fault_spec.h includes netem/spec/fault_fields.h"), std::string::npos) << r.out;
}

// No two units in a circle, but their folders are: events uses faults,
// and a file of faults uses events.
TEST(TreeCheck, ACircleBetweenFoldersFailsNamingTheFolders) {
  PlantedTree t;
  t.includes("netem/faults/fault_backend.h", {"netem/events/event_targets.h"})
      .includes("netem/events/event_targets.h", {})
      .includes("netem/events/link_events.cc", {"netem/faults/nft_rules.h"})
      .includes("netem/faults/nft_rules.h", {});
  ProcessResult r = t.check();
  EXPECT_EQ(r.exit_code, 1) << r.out << r.err;
  EXPECT_EQ(r.out.find("include circle between files"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("include circle between folders: netem/events <-> netem/faults"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("netem/faults/fault_backend.h includes netem/events/event_targets.h"), std::string::npos)
      << r.out;
}

TEST(TreeCheck, ARoomThatIncludesAboveItsRowFailsNamingTheInclude) {
  PlantedTree t;
  t.includes("netem/spec/fault_spec.h", {"netem/faults/fault_backend.h"}).includes("netem/faults/fault_backend.h", {});
  ProcessResult r = t.check();
  EXPECT_EQ(r.exit_code, 1) << r.out << r.err;
  EXPECT_NE(r.out.find("netem/spec may not include netem/faults: netem/spec/fault_spec.h includes "
                       "netem/faults/fault_backend.h"),
            std::string::npos) << r.out;
}

// A record's field read by its name outside harness/record/ fails, naming
// the file, the line and the key; the same read of JSON that is no
// record, said so, passes (the control).
TEST(TreeCheck, ARecordFieldReadByNameFailsNamingTheLine) {
  PlantedTree t;
  t.file("harness/record/classes.cc", "void describe(Io& io, C& c) { io(\"silent_loss\", c.silent_loss); }\n")
      .file("harness/report/table.cc", "int a = 1;\nint n = r.at(\"silent_loss\").get<int>();\n");
  ProcessResult r = t.check();
  EXPECT_EQ(r.exit_code, 1) << r.out << r.err;
  EXPECT_NE(r.out.find("harness/report/table.cc:2 reads the record field \"silent_loss\" by name"), std::string::npos)
      << r.out;
}

TEST(TreeCheck, JsonThatIsNoRecordSaysSoAndPasses) {
  PlantedTree t;
  t.file("harness/record/classes.cc", "void describe(Io& io, C& c) { io(\"silent_loss\", c.silent_loss); }\n")
      .file("harness/report/table.cc",
            "int n = csv.at(\"silent_loss\").get<int>();  // not a record: Levy's CSV\n"
            "void put(json& j) { j[\"silent_loss\"] = 0; }\n");
  ProcessResult r = t.check();
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
}

TEST(TreeCheck, AFolderWithoutARowFails) {
  PlantedTree t;
  t.includes("netem/weather/rain.h", {"process/spawn.h"}).includes("process/spawn.h", {});
  ProcessResult r = t.check();
  EXPECT_EQ(r.exit_code, 1) << r.out << r.err;
  EXPECT_NE(r.out.find("netem/weather has no row in ROOMS"), std::string::npos) << r.out;
}

// 32 files pass; the 33rd fails.
TEST(TreeCheck, AFolderOverThirtyTwoFilesFails) {
  PlantedTree t;
  for (int i = 0; i < 32; ++i) t.file("netem/load/hog" + std::to_string(i) + ".h");
  ProcessResult r = t.check();
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  t.file("netem/load/hog32.h");
  r = t.check();
  EXPECT_EQ(r.exit_code, 1) << r.out << r.err;
  EXPECT_NE(r.out.find("netem/load holds 33 source files (at most 32)"), std::string::npos) << r.out;
}

// The first line where two texts differ, as "line N: A | B".
std::string first_difference(const std::string& a, const std::string& b) {
  std::istringstream in_a(a), in_b(b);
  std::string line_a, line_b;
  for (int n = 1;; ++n) {
    bool more_a = static_cast<bool>(std::getline(in_a, line_a)), more_b = static_cast<bool>(std::getline(in_b, line_b));
    if (!more_a && !more_b) return "";
    if (!more_a) line_a = "(end)";
    if (!more_b) line_b = "(end)";
    if (line_a != line_b) return "line " + std::to_string(n) + ": " + line_a + " | " + line_b;
  }
}

// The picture docs/architecture.md shows is drawn from the tree, so it
// cannot drift: when the rooms change, this fails until it is redrawn.
TEST(ArchitecturePicture, IsTheOneTheTreeDrawsToday) {
  ProcessResult r = tree_check({"--dot"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  std::string committed = read_file(kSource + "/docs/images/architecture.dot");
  EXPECT_TRUE(committed == r.out) << "docs/images/architecture.dot is not the picture of today's tree: run "
                                     "tools/architecture-picture.sh and commit docs/images/architecture.dot and "
                                     ".svg (first difference, committed | today, "
                                  << first_difference(committed, r.out) << ")";
}

}  // namespace
}  // namespace rpclab::test
