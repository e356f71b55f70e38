// The docs' floor plan as a test (issue 25): tools/docs-check.py holds on
// this repository's README.md and docs/, and it can fail. Each broken set
// of pages is planted in a temporary folder with --root: a map, a page or
// two, and one thing wrong, which the check must name with its line.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "support/process.h"
#include "support/temp_dir.h"

namespace rpclab::test {
namespace {

const std::string kScript = std::string(RPCLAB_SOURCE_DIR) + "/tools/docs-check.py";

ProcessResult docs_check(const std::vector<std::string>& args) {
  std::vector<std::string> argv = {"python3", kScript};
  argv.insert(argv.end(), args.begin(), args.end());
  return run_program(argv);
}

// A results page as the plan wants it: its runs listed under "## The runs".
const char* const kResultsPage =
    "# Speed: what the runs found\n\nThe method: [../speed.md](../speed.md#the-matrix).\n\n"
    "## The runs\n\n| run | date | command |\n|---|---|---|\n"
    "| `20261126-090234-64b10083` (not shipped) | 2026-11-26 | `rpclab speed --preset levy1989` |\n\n"
    "## Levy's table and today's\n\nRun `20261126-090234`: 13.3 us a call.\n\n"
    "<!-- begin rpclab report levy1989 levy -->\n<!-- end rpclab report -->\n";

// README, the map, a method page and its results page; each test breaks one.
class PlantedDocs {
 public:
  PlantedDocs() {
    file("README.md", "# rpclab\n\nStart at [the map](docs/README.md).\n");
    file("docs/README.md", "# The map\n\n[speed](speed.md), [found](results/speed.md)\n");
    file("docs/speed.md",
         "# The speed experiment\n\n## The matrix\n\nWhat it found: "
         "[results/speed.md](results/speed.md#levys-table-and-todays).\n");
    file("docs/results/speed.md", kResultsPage);
  }
  PlantedDocs& file(const std::string& path, const std::string& text) {
    dir_.plant(path, text);
    return *this;
  }
  ProcessResult check() const { return docs_check({"--root", dir_.path()}); }
  const std::string& root() const { return dir_.path(); }

 private:
  TempDir dir_;
};

TEST(DocsCheck, TheseDocsFollowTheirPlan) {
  ProcessResult r = docs_check({});
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_NE(r.out.find("runs cited only on results pages"), std::string::npos) << r.out;
}

// The control for the planted pages below.
TEST(DocsCheck, PlantedPagesThatFollowThePlanPass) {
  ProcessResult r = PlantedDocs().check();
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_NE(r.out.find("4 pages (1 results pages)"), std::string::npos) << r.out;
}

TEST(DocsCheck, ARunCitedOnAMethodPageFailsNamingTheLine) {
  PlantedDocs docs;
  docs.file("docs/speed.md",
            "# The speed experiment\n\n## The matrix\n\nIn run `20261126-090234` a call took 13.3 us.\n"
            "See /work/runs/speed-g.\n");
  ProcessResult r = docs.check();
  EXPECT_EQ(r.exit_code, 1) << r.out;
  EXPECT_NE(r.out.find("docs/speed.md:5: cites run 20261126-090234"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("docs/speed.md:6: names a run folder"), std::string::npos) << r.out;
}

TEST(DocsCheck, ATableQuotedFromARunOutsideResultsFails) {
  PlantedDocs docs;
  docs.file("README.md",
            "# rpclab\n\n[map](docs/README.md)\n\n<!-- begin rpclab report levy1989 levy -->\n"
            "<!-- end rpclab report -->\n");
  ProcessResult r = docs.check();
  EXPECT_EQ(r.exit_code, 1) << r.out;
  EXPECT_NE(r.out.find("README.md:5: quotes a run's table"), std::string::npos) << r.out;
}

TEST(DocsCheck, AResultsPageCitingARunItDoesNotListFails) {
  PlantedDocs docs;
  docs.file("docs/results/speed.md", std::string(kResultsPage) + "\nA second run, `20261127-101010`, agreed.\n");
  ProcessResult r = docs.check();
  EXPECT_EQ(r.exit_code, 1) << r.out;
  EXPECT_NE(r.out.find("docs/results/speed.md:18: cites run 20261127-101010, which '## The runs' does not list"),
            std::string::npos)
      << r.out;
}

TEST(DocsCheck, AResultsPageWithoutItsRunsTableFails) {
  PlantedDocs docs;
  docs.file("docs/results/speed.md", "# Speed: what the runs found\n\n[method](../speed.md)\n");
  ProcessResult r = docs.check();
  EXPECT_EQ(r.exit_code, 1) << r.out;
  EXPECT_NE(r.out.find("docs/results/speed.md:1: a results page has no '## The runs' section"), std::string::npos)
      << r.out;
}

TEST(DocsCheck, ALinkToAMissingFileOrHeadingFails) {
  PlantedDocs docs;
  docs.file("docs/speed.md",
            "# The speed experiment\n\n## The matrix\n\n[gone](results/speed.md#the-matrix-of-1989)\n"
            "[moved](nfs-udp-findings.md)\n![picture](images/none.png)\n\n```\n[in a code block](nowhere.md)\n```\n");
  ProcessResult r = docs.check();
  EXPECT_EQ(r.exit_code, 1) << r.out;
  EXPECT_NE(r.out.find("docs/speed.md:5: links to results/speed.md#the-matrix-of-1989: docs/results/speed.md has no "
                       "heading '#the-matrix-of-1989'"),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("docs/speed.md:6: links to nfs-udp-findings.md: there is no docs/nfs-udp-findings.md"),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("docs/speed.md:7: links to images/none.png"), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("nowhere.md"), std::string::npos) << "a link inside a code block is not a link: " << r.out;
}

// GitHub's anchors: `code` and punctuation dropped, hyphens kept, a repeated
// heading numbered.
TEST(DocsCheck, AnchorsAreGitHubs) {
  PlantedDocs docs;
  docs.file("docs/speed.md",
            "# The speed experiment\n\n## The matrix\n\n## Open loop: `rpclab speed --rates`\n\n## Notes\n\n## Notes\n\n"
            "[a](#open-loop-rpclab-speed---rates) [b](#notes-1) [c](../docs/speed.md#notes)\n");
  ProcessResult r = docs.check();
  EXPECT_EQ(r.exit_code, 0) << r.out;
}

// What a preset plans, as `rpclab presets --markdown` writes it into
// docs/presets.md: the quick preset's three tables, 15 cells, 45 trials.
const char* const kPresetsPage =
    "# Presets\n\n## `rpclab dependability`\n\n### `quick`\n\n"
    "`rpclab dependability --preset quick`: every transport, then 5% duplication (about a minute).\n\n"
    "| table | `clean` | `udp-dup` | `stream-dup` |\n|---|---:|---:|---:|\n| cells | 7 | 2 | 6 |\n"
    "| trials a cell | 3 | 3 | 3 |\n\n## Why these sizes\n\nProse.\n";

ProcessResult with_presets(const std::string& readme_line) {
  PlantedDocs docs;
  docs.file("docs/README.md", "# The map\n\n[speed](speed.md), [found](results/speed.md), [presets](presets.md)\n");
  docs.file("docs/presets.md", kPresetsPage);
  docs.file("README.md", "# rpclab\n\nStart at [the map](docs/README.md).\n\n" + readme_line + "\n");
  return docs.check();
}

// Counts and times README states about a preset are what the preset plans
// (issue 39: "11 cells of 3 trials" stayed in README after quick grew to 15).
TEST(DocsCheck, AStaleCountOrTimeAboutAPresetFails) {
  ProcessResult right = with_presets("    make run-dependability PRESET=quick   # 15 cells, 45 trials, about a minute");
  EXPECT_EQ(right.exit_code, 0) << right.out;
  EXPECT_NE(right.out.find("1 lines about a preset state what it plans"), std::string::npos) << right.out;
  EXPECT_EQ(with_presets("The quick preset runs 2 cells of 3 trials under duplication.").exit_code, 0)
      << "a table's cells and a cell's trials are what it plans too";
  ProcessResult stale = with_presets("    make run-dependability PRESET=quick   # 11 cells, 33 trials, under a minute");
  EXPECT_EQ(stale.exit_code, 1) << stale.out;
  EXPECT_NE(stale.out.find("README.md:5: says 11 cells of dependability quick, which plans 15 cells"),
            std::string::npos) << stale.out;
  EXPECT_NE(stale.out.find("README.md:5: says 33 trials of dependability quick, which plans 45 in all"),
            std::string::npos) << stale.out;
  EXPECT_NE(stale.out.find("README.md:5: says 'under a minute' of dependability quick"), std::string::npos)
      << stale.out;
  ProcessResult other = with_presets("`rpclab dependability --preset quick` (12 cells) is the CI matrix.");
  EXPECT_EQ(other.exit_code, 1) << other.out;
  EXPECT_NE(other.out.find("README.md:5: says 12 cells of dependability quick"), std::string::npos) << other.out;
}

TEST(DocsCheck, APageOffTheMapFails) {
  PlantedDocs docs;
  docs.file("docs/nfs.md", "# NFS\n");
  ProcessResult r = docs.check();
  EXPECT_EQ(r.exit_code, 1) << r.out;
  EXPECT_NE(r.out.find("docs/README.md:1: does not link to docs/nfs.md"), std::string::npos) << r.out;
}

// --- Shipped runs (issue 39): every run a results page lists is in the
// repository or marked as not; every table quoted from a shipped run is
// what rpclab prints from the shipped data today.

TEST(DocsCheck, ARunNeitherShippedNorMarkedFails) {
  PlantedDocs docs;
  std::string page = kResultsPage;
  page.replace(page.find(" (not shipped)"), 14, "");
  docs.file("docs/results/speed.md", page);
  ProcessResult r = docs.check();
  EXPECT_EQ(r.exit_code, 1) << r.out;
  EXPECT_NE(r.out.find("docs/results/speed.md:9: lists a run that is not under docs/results/runs/"),
            std::string::npos)
      << r.out;
}

const std::string kShippedRun = "20261207-193358-171b76de";  // the paths run docs/results/dependability.md quotes

std::string read_file(const std::string& path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

// The `paths paths` block as docs/results/dependability.md quotes it from
// the shipped run, markers included.
std::string quoted_paths_block() {
  std::string page = read_file(std::string(RPCLAB_SOURCE_DIR) + "/docs/results/dependability.md");
  size_t begin = page.find("<!-- begin rpclab report paths paths -->");
  size_t end = page.find("<!-- end rpclab report -->", begin);
  if (begin == std::string::npos || end == std::string::npos) return "";
  return page.substr(begin, end + std::string("<!-- end rpclab report -->").size() - begin) + "\n";
}

// A results page quoting the shipped paths run, with the run copied in.
class PlantedShippedRun : public PlantedDocs {
 public:
  explicit PlantedShippedRun(const std::string& block) {
    std::string from = std::string(RPCLAB_SOURCE_DIR) + "/docs/results/runs/" + kShippedRun;
    for (const char* name : {"metadata.json", "results.jsonl.gz"})
      file("docs/results/runs/" + kShippedRun + "/" + name, read_file(from + "/" + name));
    file("docs/results/dependability.md",
         "# Dependability: what the runs found\n\n## The runs\n\n| run | date |\n|---|---|\n| `" + kShippedRun +
             "` (shipped) | 2026-12-06 |\n\n## Paths\n\n" + block);
    file("docs/README.md",
         "# The map\n\n[speed](speed.md), [found](results/speed.md), [more](results/dependability.md)\n");
  }
  ProcessResult check_with_rpclab() const { return run_program({"python3", kScript, "--root", root(), "--rpclab",
                                                                 bin("rpclab")}); }
};

TEST(DocsCheck, AQuotedTableOfAShippedRunIsRegeneratedFromIt) {
  std::string block = quoted_paths_block();
  ASSERT_NE(block.find("Run `" + kShippedRun + "`"), std::string::npos) << "the page no longer quotes the run";
  PlantedShippedRun docs(block);
  ProcessResult r = docs.check_with_rpclab();
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_NE(r.out.find("1 quoted tables regenerated from shipped runs with no difference"), std::string::npos)
      << r.out;
}

TEST(DocsCheck, AQuotedTableThatDiffersFromItsShippedRunFails) {
  std::string block = quoted_paths_block();
  size_t at = block.find("| 0 in 3 |");
  ASSERT_NE(at, std::string::npos) << block;
  block.replace(at, 10, "| 1 in 3 |");  // one figure changed by hand
  PlantedShippedRun docs(block);
  ProcessResult r = docs.check_with_rpclab();
  EXPECT_EQ(r.exit_code, 1) << r.out << r.err;
  EXPECT_NE(r.out.find("differs from what `rpclab report` prints from shipped run " + kShippedRun),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("1 in 3"), std::string::npos) << "the line that differs is named: " << r.out;
}

// The repository's own pages, every shipped table regenerated.
TEST(DocsCheck, TheseDocsQuoteTheirShippedRunsExactly) {
  ProcessResult r = docs_check({"--rpclab", bin("rpclab")});
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_NE(r.out.find("quoted tables regenerated from shipped runs with no difference"), std::string::npos) << r.out;
}

// rpclab reads a shipped run in place and writes nothing into it; its views
// go where --views says.
TEST(ShippedRuns, ReportReadsOneInPlaceAndDrawsItsViewsElsewhere) {
  TempDir views;
  std::string run = std::string(RPCLAB_SOURCE_DIR) + "/docs/results/runs/" + kShippedRun;
  ProcessResult r = run_program({bin("rpclab"), "report", run});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("The path people deploy"), std::string::npos) << r.out;
  EXPECT_NE(r.err.find("is a shipped run (results.jsonl.gz): report.html and the plots are not written into it"),
            std::string::npos)
      << r.err;
  EXPECT_FALSE(std::filesystem::exists(run + "/report.html"));
  r = run_program({bin("rpclab"), "report", run, "--views", views.path() + "/v"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(std::filesystem::is_regular_file(views.path() + "/v/report.html")) << r.err;
  EXPECT_FALSE(std::filesystem::exists(run + "/report.html"));
  r = run_program({bin("rpclab"), "compare", run, run});
  EXPECT_NE(r.out.find(kShippedRun), std::string::npos) << r.out << r.err;
}

}  // namespace
}  // namespace rpclab::test
