// report.html as a person opens it: a small real run of each experiment,
// its page loaded in headless Chromium (Debian's chromium). The page loads
// with nothing logged to the console, every table and plot the HTML holds
// is still in the DOM Chromium built and is not empty, and the screenshot
// is saved in the run folder as report-screenshot.png.
#include <gtest/gtest.h>

#include <filesystem>

#include "ecosystem_util.h"
#include "support/temp_dir.h"

namespace rpclab::test {
namespace {

using namespace std::chrono_literals;

std::string chromium_missing() {
  ProcessResult r = run_program({"sh", "-c", "command -v chromium"});
  return r.exit_code == 0 ? "" : "chromium is not installed (tools/deps.sh test installs it: apt-get install chromium)";
}

std::vector<std::string> chromium(const TempDir& dir, std::vector<std::string> more) {
  std::vector<std::string> argv = {"chromium", "--headless", "--no-sandbox", "--disable-gpu",
                                   "--no-first-run", "--user-data-dir=" + dir.file("chromium-profile"),
                                   "--enable-logging=stderr", "--v=0", "--window-size=1400,4000"};
  argv.insert(argv.end(), more.begin(), more.end());
  return argv;
}

// How often `needle` occurs in `text`.
size_t count(const std::string& text, const std::string& needle) {
  size_t n = 0;
  for (size_t at = text.find(needle); at != std::string::npos; at = text.find(needle, at + needle.size())) ++n;
  return n;
}

// Each <open>...</close> element of `dom`, outermost text included. Plain
// search, not std::regex: libstdc++'s regex recurses once per character, and
// a page of inline plots overflowed the stack under AddressSanitizer.
std::vector<std::string> elements(const std::string& dom, const std::string& open, const std::string& close) {
  std::vector<std::string> out;
  for (size_t at = dom.find(open); at != std::string::npos; at = dom.find(open, at + 1)) {
    size_t end = dom.find(close, at);
    if (end == std::string::npos) break;
    out.push_back(dom.substr(at, end + close.size() - at));
  }
  return out;
}

// Every <table> has a data cell, every <figure> an <svg> with drawn paths.
void expect_full_tables_and_plots(const std::string& dom, size_t min_tables, size_t min_plots) {
  std::vector<std::string> tables = elements(dom, "<table>", "</table>"), figures = elements(dom, "<figure>", "</figure>");
  EXPECT_GE(tables.size(), min_tables) << "tables missing from the page";
  EXPECT_GE(figures.size(), min_plots) << "plots missing from the page";
  for (const std::string& t : tables) EXPECT_NE(t.find("<td"), std::string::npos) << "an empty table: " << t.substr(0, 300);
  for (const std::string& f : figures) {
    EXPECT_NE(f.find("<svg"), std::string::npos) << "a figure without its plot";
    EXPECT_GE(count(f, "<path"), 5u) << "a plot with nothing drawn";
  }
}

void check_in_browser(const TempDir& dir, const std::string& run, size_t min_tables, size_t min_plots) {
  std::string page = run + "/report.html", url = "file://" + page;
  ASSERT_TRUE(std::filesystem::is_regular_file(page)) << "the run wrote no report.html";
  ProcessResult dom = run_program(chromium(dir, {"--dump-dom", url}), 120s);
  ASSERT_EQ(dom.exit_code, 0) << dom.err;
  EXPECT_EQ(dom.err.find("CONSOLE"), std::string::npos) << "the page logged to the console:\n" << dom.err;
  EXPECT_EQ(dom.err.find("Failed to load"), std::string::npos) << "the page fetched something:\n" << dom.err;
  for (const char* fetch : {"src=\"http:", "src=\"https:", "src=\"ftp:", "href=\"http:", "href=\"https:", "href=\"ftp:"})
    EXPECT_EQ(count(dom.out, fetch), 0u) << "the page must not fetch anything: " << fetch;
  expect_full_tables_and_plots(dom.out, min_tables, min_plots);
  std::string shot = run + "/report-screenshot.png";
  ProcessResult s = run_program(chromium(dir, {"--screenshot=" + shot, "--hide-scrollbars", url}), 120s);
  ASSERT_EQ(s.exit_code, 0) << s.err;
  ASSERT_TRUE(std::filesystem::exists(shot)) << s.err;
  EXPECT_GT(std::filesystem::file_size(shot), 50'000u) << "a screenshot that small is a blank page";
}

std::vector<std::string> in_folder(const TempDir& dir, std::vector<std::string> argv) {
  argv.insert(argv.begin(), bin("rpclab"));
  argv.insert(argv.end(), {"--out", dir.file("run"), "--results-root", dir.file("results")});
  return argv;
}

TEST(ReportInBrowser, DependabilityReportShowsEveryTableAndPlot) {
  if (std::string why = chromium_missing(); !why.empty()) GTEST_SKIP() << why;
  TempDir dir;
  ProcessResult r = run_program(in_folder(dir, {"dependability", "--preset", "quick", "--tables", "clean",
                                                "--transports", "sunrpc-udp,grpc", "--calls", "200", "--trials", "2",
                                                "--title", "browser test <run>"}),
                                300s);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_PRED_FORMAT2(testing::IsSubstring, "Report: " + dir.file("run") + "/report.html", r.err);
  std::string html = slurp(dir.file("run/report.html"));
  EXPECT_PRED_FORMAT2(testing::IsSubstring, "browser test &lt;run&gt;", html) << "--title names the page";
  check_in_browser(dir, dir.file("run"), 3, 1);
}

TEST(ReportInBrowser, SpeedReportShowsLatencyDistributions) {
  if (std::string why = chromium_missing(); !why.empty()) GTEST_SKIP() << why;
  TempDir dir;
  ProcessResult r = run_program(
      in_folder(dir, {"speed", "--transports", "raw-tcp,sunrpc-tcp", "--sizes", "12,512", "--clients", "1,2",
                      "--topologies", "loopback", "--connect", "persistent", "--trials", "2", "--calls-per-trial", "50",
                      "--warmup", "1", "--no-calibrate"}),
      300s);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  std::string html = slurp(dir.file("run/report.html"));
  for (const char* plot : {"latency-cdf-12", "latency-histogram-512", "throughput-vs-clients", "latency-vs-size"})
    EXPECT_PRED_FORMAT2(testing::IsSubstring, std::string(plot) + ".svg", html);
  check_in_browser(dir, dir.file("run"), 2, 6);
  // `rpclab report` makes the page again from results.jsonl alone.
  std::filesystem::remove(dir.file("run/report.html"));
  ProcessResult again = run_program({bin("rpclab"), "report", dir.file("run")});
  ASSERT_EQ(again.exit_code, 0) << again.err;
  EXPECT_EQ(slurp(dir.file("run/report.html")).find("<figure>") != std::string::npos, true);
}

}  // namespace
}  // namespace rpclab::test
