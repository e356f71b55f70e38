// Adapters from RPCLAB_ADAPTERS, as an outside author has them: a folder
// copied under a temp dir outside the repository. It builds into the cache
// ($XDG_CACHE_HOME/rpclab/adapters/NAME-<hex>), never into rpclab's build
// tree, and passes the check from there; a failed build is built again
// once its sources change; a manifest that is not valid skips that adapter
// with the file and the field, and every command still works.
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include <gtest/gtest.h>

#include "support/process.h"
#include "support/temp_dir.h"

namespace rpclab::test {
namespace {

using namespace std::chrono_literals;
namespace fs = std::filesystem;

const std::string kPyCounter = RPCLAB_SOURCE_DIR "/tests/adapters/fixtures/pycounter.py";

bool has_line(const std::string& out, const std::string& start, const std::string& words) {
  for (size_t at = 0; (at = out.find(start, at)) != std::string::npos; ++at)
    if ((at == 0 || out[at - 1] == '\n') && out.substr(at, out.find('\n', at) - at).find(words) != std::string::npos)
      return true;
  return false;
}

// An author's folder of adapters, and the cache rpclab builds them in.
class Outside {
 public:
  Outside() { fs::create_directories(adapters()); }
  std::string adapters() const { return dir_.file("their-repo/adapters"); }
  std::string cache() const { return dir_.file("cache"); }
  ProcessResult rpclab(std::vector<std::string> args, std::chrono::milliseconds limit = 60s) const {
    std::vector<std::string> argv = {"env", "RPCLAB_ADAPTERS=" + adapters(), "XDG_CACHE_HOME=" + cache(),
                                     bin("rpclab")};
    argv.insert(argv.end(), args.begin(), args.end());
    return run_program(argv, limit);
  }
  // Adapter `name`: pycounter.py (no bug) copied into {out} by its build,
  // `build.sh`, which the test can change.
  void plant(const std::string& name, const std::string& build_sh) const {
    std::string d = adapters() + "/" + name;
    fs::create_directories(d);
    fs::copy_file(kPyCounter, d + "/pycounter.py", fs::copy_options::overwrite_existing);
    set_build(name, build_sh);
    std::ofstream(d + "/manifest.json")
        << R"({"manifest_version":1,"name":")" << name << R"(","summary":"pycounter.py, built by copying",)"
        << R"("library":"Python's socket module","build":["sh","{dir}/build.sh","{dir}","{out}"],)"
        << R"("server":["{out}/pycounter.py","server","--name",")" << name << R"("],)"
        << R"("client":["{out}/pycounter.py","client","--name",")" << name << R"("],)"
        << R"("carrier":"stream","operations":["null","next"],"retry_policies":["none"],)"
        << R"("library_retry":{"kind":"none","what":"it never sends a call again"}})";
  }
  void set_build(const std::string& name, const std::string& build_sh) const {
    std::ofstream(adapters() + "/" + name + "/build.sh") << build_sh;
  }

 private:
  TempDir dir_;
};

const char* kCopies = "cp \"$1/pycounter.py\" \"$2/pycounter.py\" && chmod +x \"$2/pycounter.py\"\n";

TEST(AdapterFolders, AnAdapterOutsideTheRepositoryBuildsIntoTheCacheAndPassesTheCheck) {
  Outside o;
  o.plant("outside-counter", kCopies);
  run_program({"rm", "-rf", bin("adapters/outside-counter")});  // from a build before the cache
  TempDir check;
  ProcessResult r = o.rpclab({"adapter", "check", "outside-counter", "--no-cell", "--dir", check.file("c")});
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_TRUE(has_line(r.out, "ok    build", "")) << r.out;
  EXPECT_TRUE(has_line(r.out, "ok    stop", "")) << r.out;
  // Its programs are in the cache, and nothing of it in rpclab's tree.
  size_t built = 0;
  for (const auto& e : fs::directory_iterator(o.cache() + "/rpclab/adapters")) {
    EXPECT_EQ(e.path().filename().string().rfind("outside-counter-", 0), 0u) << e.path();
    built += fs::exists(e.path() / "pycounter.py") && fs::exists(e.path() / "build.log");
  }
  EXPECT_EQ(built, 1u);
  EXPECT_FALSE(fs::exists(bin("adapters/outside-counter")));
  EXPECT_FALSE(fs::exists(o.adapters() + "/outside-counter/build"));
  ProcessResult list = o.rpclab({"adapter", "list"});
  EXPECT_TRUE(has_line(list.out, "outside-counter", "built")) << list.out;
}

TEST(AdapterFolders, AFailedBuildIsBuiltAgainOnceItsSourcesChange) {
  Outside o;
  o.plant("mended", "echo 'no compiler here' >&2; exit 1\n");
  TempDir check;
  ProcessResult first = o.rpclab({"adapter", "check", "mended", "--no-cell", "--dir", check.file("c")});
  EXPECT_EQ(first.exit_code, 1) << first.out << first.err;
  EXPECT_TRUE(has_line(first.out, "FAIL  build", "no compiler here")) << first.out;
  // Unchanged sources: the failure stands, with its reason, and no build runs.
  ProcessResult same = o.rpclab({"adapter", "list"});
  EXPECT_TRUE(has_line(same.out, "mended", "skipped  its build failed (")) << same.out;
  EXPECT_EQ(same.err.find("building it again"), std::string::npos) << same.err;
  // The author mends build.sh: the next start builds it again, and it is a row.
  o.set_build("mended", std::string("# mended\n") + kCopies);
  ProcessResult mended = o.rpclab({"adapter", "list"});
  EXPECT_EQ(mended.exit_code, 0) << mended.err;
  EXPECT_NE(mended.err.find("rpclab: adapter mended: its sources changed since its build failed; building it again"),
            std::string::npos) << mended.err;
  EXPECT_TRUE(has_line(mended.out, "mended", "built")) << mended.out << mended.err;
  // Broken again: it fails once more, and stays failed until the next change.
  o.set_build("mended", "exit 1\n");
  ProcessResult broken = o.rpclab({"adapter", "build", "mended"});
  EXPECT_EQ(broken.exit_code, 1) << broken.err;
  ProcessResult after = o.rpclab({"adapter", "list"});
  EXPECT_EQ(after.err.find("building it again"), std::string::npos) << after.err;
}

TEST(AdapterFolders, AnInvalidManifestSkipsThatAdapterWithTheFileAndTheField) {
  Outside o;
  o.plant("fine", kCopies);
  fs::create_directories(o.adapters() + "/broken");
  std::ofstream(o.adapters() + "/broken/manifest.json")
      << R"({"manifest_version":1,"name":"broken","summary":"s","library":"l","build":[],"server":["x"],)"
         R"("client":["y"],"carrier":"tcp","operations":["next"],"retry_policies":["none"],)"
         R"("library_retry":{"kind":"none","what":"w"}})";
  std::string why = o.adapters() + "/broken/manifest.json: field 'carrier': \"tcp\" is not one of datagram, stream";
  ProcessResult list = o.rpclab({"adapter", "list"});
  EXPECT_EQ(list.exit_code, 0) << list.out << list.err;
  EXPECT_TRUE(has_line(list.out, "broken", "skipped  its manifest is not valid: " + why)) << list.out;
  EXPECT_TRUE(has_line(list.out, "fine", "skipped  not built")) << list.out;
  // Every other command still runs; naming the broken one says why.
  ProcessResult plan = o.rpclab({"dependability", "--preset", "quick", "--transports", "grpc", "--dry-run", "--out",
                                 o.cache() + "/run"});
  EXPECT_EQ(plan.exit_code, 0) << plan.out << plan.err;
  ProcessResult check = o.rpclab({"adapter", "check", "broken", "--no-cell"});
  EXPECT_EQ(check.exit_code, 2);
  EXPECT_NE(check.err.find("adapter broken: its manifest is not valid: " + why), std::string::npos) << check.err;
}

}  // namespace
}  // namespace rpclab::test
