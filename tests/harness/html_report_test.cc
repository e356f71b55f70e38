// report.html from records made by hand: text is escaped wherever it comes
// from, the Markdown tables become HTML tables, every cell gets its row and
// its collapsed details, and the title and metadata are on the page.
#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <regex>
#include <sstream>

#include "harness/dependability/dependability_report.h"
#include "harness/report/html_report.h"
#include "harness/report/html_writer.h"
#include "support/temp_dir.h"
#include "synthetic_records.h"

namespace rpclab::harness {
namespace {

using nlohmann::json;

size_t occurrences(const std::string& text, const std::string& what) {
  size_t n = 0;
  for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

TEST(HtmlWriter, EscapesEveryText) {
  EXPECT_EQ(html::escape("<b>&\"'"), "&lt;b&gt;&amp;&quot;&#39;");
  std::string t = html::table({"a<"}, {{"<script>x</script>"}}, "c&");
  EXPECT_EQ(t.find("<script>"), std::string::npos) << t;
  EXPECT_PRED_FORMAT2(testing::IsSubstring, "&lt;script&gt;", t);
  EXPECT_PRED_FORMAT2(testing::IsSubstring, "<caption>c&amp;</caption>", t);
}

TEST(HtmlWriter, MarkdownTablesBecomeTables) {
  std::string h = html::from_markdown("Title line\n\n| row | 1989 |\n|---|---:|\n| a \\| b | 12.5 |\n\nafter\n");
  EXPECT_EQ(occurrences(h, "<table>"), 1u) << h;
  EXPECT_PRED_FORMAT2(testing::IsSubstring, "<td>a | b</td>", h);
  EXPECT_PRED_FORMAT2(testing::IsSubstring, "<td class=\"num\">12.5</td>", h);
  EXPECT_PRED_FORMAT2(testing::IsSubstring, "<p>Title line</p>", h);
  EXPECT_PRED_FORMAT2(testing::IsSubstring, "<p>after</p>", h);
}

TEST(HtmlReport, EveryCellHasItsRowAndItsDetails) {
  HtmlReportInput in;
  in.metadata = nlohmann::json{{"experiment", "dependability"},
                                {"run_id", "r1"},
                                {"title", "A <title>"},
                                {"rpclab", {{"version", "9.9"}, {"git_commit", "abc"}}},
                                {"host", {{"hostname", "h1"}}}}
                    .get<RunMetadata>();
  in.records = typed_records({dependability_record("sunrpc-udp", 0, 20000, 30), dependability_record("grpc", 0, 20000, 0)});
  in.records[0].cell_index = 1;
  in.records[1].cell_index = 2;
  in.records[1].label = "grpc <&>";
  in.tables_markdown = "| transport | 1989 |\n|---|---:|\n| sunrpc-udp | 0 |\n";
  in.commands_log = "# cell 1/2 trial 1/1: sunrpc-udp\nip netns add x\n# cell 2/2 trial 1/1: grpc\nrpclab-server y\n";
  in.cell_figures = dependability_cell_figures();
  std::string page = html_report(in);
  EXPECT_PRED_FORMAT2(testing::IsSubstring, "A &lt;title&gt; (rpclab dependability run r1)", page);
  EXPECT_PRED_FORMAT2(testing::IsSubstring, "grpc &lt;&amp;&gt;", page);
  EXPECT_EQ(page.find("grpc <&>"), std::string::npos);
  EXPECT_EQ(occurrences(page, "<details>"), 3u) << "the capabilities and one per cell";
  EXPECT_PRED_FORMAT2(testing::IsSubstring, "ip netns add x", page);
  EXPECT_PRED_FORMAT2(testing::IsSubstring, "rpclab-server y", page);
  EXPECT_PRED_FORMAT2(testing::IsSubstring, "9.9 (commit abc)", page);
  EXPECT_PRED_FORMAT2(testing::IsSubstring, "silent per 1M, median of trials [spread]", page);
  EXPECT_PRED_FORMAT2(testing::IsSubstring, "<td class=\"num\">20,000</td>", page) << "the calls of each cell";
  EXPECT_EQ(page.find("[95%]"), std::string::npos) << "no interval over dependent calls (issue 26)";
  EXPECT_EQ(page.find("<script"), std::string::npos) << "no JavaScript";
}

// The page sends its reader to the guide's reading section, which exists:
// the link from results/<folder>/report.html resolves to docs/guide.md,
// and the guide has the heading the anchor names (GitHub's slug of it).
TEST(HtmlReport, LinksToTheGuidesReadingSection) {
  HtmlReportInput in;
  in.metadata = nlohmann::json{{"experiment", "dependability"}, {"run_id", "r1"}}.get<RunMetadata>();
  std::string page = html_report(in);
  EXPECT_PRED_FORMAT2(testing::IsSubstring, std::string("<a href=\"") + kReportGuide + "\">", page);
  EXPECT_EQ(page.find("docs/running.md says how to read it"), std::string::npos);
  std::string link = kReportGuide;
  ASSERT_EQ(link.rfind("../../", 0), 0u) << "relative to results/<folder>/";
  std::string file = link.substr(6, link.find('#') - 6), anchor = link.substr(link.find('#') + 1);
  std::ifstream guide(std::string(RPCLAB_SOURCE_DIR) + "/" + file);
  ASSERT_TRUE(guide) << file;
  std::stringstream text;
  text << guide.rdbuf();
  std::string heading = anchor;
  std::replace(heading.begin(), heading.end(), '-', ' ');
  heading[0] = static_cast<char>(std::toupper(static_cast<unsigned char>(heading[0])));
  EXPECT_PRED_FORMAT2(testing::IsSubstring, "\n## " + heading + "\n", text.str());
}

// A path cell's details hold the proxy's configuration each trial ran,
// read from the file its record names, escaped like any other text.
TEST(HtmlReport, APathCellShowsTheProxysConfigurationOfEachTrial) {
  test::TempDir dir;
  dir.plant("trial-1/haproxy.cfg", "backend replicas\n  retry-on <response-timeout>\n");
  HtmlReportInput in;
  in.metadata = nlohmann::json{{"experiment", "dependability"}, {"run_id", "r1"}}.get<RunMetadata>();
  in.records = typed_records({dependability_record("grpc", 0, 1000, 0)});
  in.records[0].cell_index = 1;
  TrialRecord trial;
  trial.trial = 1;
  trial.trial_dir = dir.file("trial-1");
  PathFigures path;
  path.proxy = "HAProxy 2.6.12";
  path.config = "haproxy.cfg";
  trial.dependability.path = path;
  in.records[0].per_trial = std::vector<TrialRecord>{trial};
  in.cell_figures = dependability_cell_figures();
  std::string page = html_report(in);
  EXPECT_PRED_FORMAT2(testing::IsSubstring, "trial 1: haproxy.cfg (HAProxy 2.6.12)", page);
  EXPECT_PRED_FORMAT2(testing::IsSubstring, "retry-on &lt;response-timeout&gt;", page);
}

}  // namespace
}  // namespace rpclab::harness
