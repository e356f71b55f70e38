// The pandas recipe of docs/results-format.md, run as a reader would run
// it: the code block after the "pandas recipe" marker, with Debian's
// python3-pandas, on the folder of a real run. It must give one row per
// cell with the figures results.jsonl holds.
#include <gtest/gtest.h>

#include <algorithm>

#include <nlohmann/json.hpp>

#include "ecosystem_util.h"
#include "support/temp_dir.h"

namespace rpclab::test {
namespace {

using nlohmann::json;
using namespace std::chrono_literals;

// The first ```python block after the marker in docs/results-format.md.
std::string documented_recipe() {
  std::string doc = slurp(RPCLAB_SOURCE_DIR "/docs/results-format.md");
  size_t marker = doc.find("<!-- pandas recipe:");
  if (marker == std::string::npos) return "";
  size_t begin = doc.find("```python\n", marker);
  size_t end = doc.find("\n```", begin + 1);
  if (begin == std::string::npos || end == std::string::npos) return "";
  begin += std::string("```python\n").size();
  return doc.substr(begin, end - begin + 1);
}

TEST(PandasRecipe, ReadsARunFolderIntoOneRowPerCell) {
  std::string recipe = documented_recipe();
  ASSERT_FALSE(recipe.empty()) << "docs/results-format.md has no pandas recipe after its marker";
  if (std::string why = python_lacks({"pandas"}, "python3-pandas"); !why.empty()) GTEST_SKIP() << why;
  TempDir dir;
  ProcessResult run = run_program({bin("rpclab"), "dependability", "--preset", "quick", "--tables", "clean",
                                   "--transports", "sunrpc-udp,sunrpc-tcp", "--calls", "100", "--trials", "1",
                                   "--title", "pandas", "--out", dir.file("run"), "--results-root",
                                   dir.file("results")},
                                  300s);
  ASSERT_EQ(run.exit_code, 0) << run.err;
  std::string driver = recipe +
                       "\nimport sys\n"
                       "frame = load_run(sys.argv[1])\n"
                       "print(json.dumps({'rows': len(frame), 'title': list(frame['title'].unique()),\n"
                       "                  'labels': list(frame['label']),\n"
                       "                  'correct': [int(v) for v in frame['classes.correct']],\n"
                       "                  'columns': list(frame.columns)}))\n";
  ProcessResult r = run_program({kDebianPython, "-c", driver, dir.file("run")}, 120s);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  json got = json::parse(lines_of(r.out).back());

  std::vector<json> records;
  for (const std::string& line : lines_of(slurp(dir.file("run/results.jsonl")))) records.push_back(json::parse(line));
  ASSERT_EQ(records.size(), 2u);
  std::sort(records.begin(), records.end(),
            [](const json& a, const json& b) { return a["cell_index"] < b["cell_index"]; });
  EXPECT_EQ(got["rows"], records.size());
  EXPECT_EQ(got["title"], json::array({"pandas"}));
  for (size_t i = 0; i < records.size(); ++i) {
    EXPECT_EQ(got["labels"][i], records[i]["label"]);
    EXPECT_EQ(got["correct"][i], records[i]["classes"]["correct"]);
  }
  for (const char* column : {"silent_per_million.value", "faults.measured_dup_pct", "load.hogs", "git_commit"})
    EXPECT_NE(std::find(got["columns"].begin(), got["columns"].end(), column), got["columns"].end()) << column;
}

}  // namespace
}  // namespace rpclab::test
