// Where a program writes a file someone named (--record, --ledger,
// --ready-file, --stats-file, --out, ...): `-` is standard output; a FIFO
// or a character device, or a link to one, is written in place; a folder,
// a block device or a link to nothing is refused; only a regular file (or
// nothing) is replaced atomically, and a link to a regular file stays a
// link. A past bug renamed a call record over /dev/stdout as root, so
// every node here is one this test makes in a folder of its own, never a
// real device or system path.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "common/atomic_file.h"
#include "client/call_record.h"
#include "harness/harness_e2e_util.h"
#include "harness/run/run_folder.h"
#include "support/process.h"
#include "support/server_process.h"
#include "support/temp_dir.h"
#include "support/wait.h"

namespace rpclab::test {
namespace {

namespace fs = std::filesystem;

// A FIFO held open for reading from the start, so a writer's open() does
// not wait for a reader. What the writer wrote (less than the pipe's 64 KiB)
// is read once it is done. If the FIFO was replaced instead, this still
// holds the original one, and reads nothing.
class FifoReader {
 public:
  explicit FifoReader(const std::string& path) : fd_(::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC)) {}
  ~FifoReader() {
    if (fd_ >= 0) ::close(fd_);
  }
  std::string finish() {
    std::string data;
    char buf[4096];
    for (ssize_t n; (n = ::read(fd_, buf, sizeof buf)) > 0 || (n < 0 && errno == EINTR);)
      if (n > 0) data.append(buf, static_cast<size_t>(n));
    return data;
  }

 private:
  int fd_;
};

mode_t kind_at(const std::string& path) {
  struct stat st {};
  return ::lstat(path.c_str(), &st) == 0 ? (st.st_mode & S_IFMT) : 0;
}

void make_fifo(const std::string& path) { ASSERT_EQ(::mkfifo(path.c_str(), 0600), 0) << std::strerror(errno); }

void make_link(const std::string& target, const std::string& link) {
  ASSERT_EQ(::symlink(target.c_str(), link.c_str()), 0) << std::strerror(errno);
}

void write_text(const std::string& path, const std::string& text) { std::ofstream(path) << text; }

// A character device with /dev/null's numbers, made in the test's folder.
bool make_null_device(const std::string& path) {
  return ::mknod(path.c_str(), S_IFCHR | 0666, ::makedev(1, 3)) == 0;
}

std::vector<std::string> client_argv(const ServerProcess& server, const std::string& record) {
  return {bin("rpclab-client"), "--transport", "raw-udp", "--server", server.address(), "--calls", "3",
          "--op",               "echo",        "--size",    "12",          "--record", record};
}

// argv run with `dir` as its working folder, so a file named "-" would land there.
std::vector<std::string> in_folder(const std::string& dir, const std::vector<std::string>& argv) {
  std::vector<std::string> sh = {"sh", "-c", "cd \"$0\" && exec \"$@\"", dir};
  sh.insert(sh.end(), argv.begin(), argv.end());
  return sh;
}

// Waits (20 s at most) until a background program has printed `words` into
// its log, or has ended; returns the log.
std::string wait_for_output(Child& child, const std::string& log, const std::string& words) {
  wait_until([&] { return read_whole_file(log).find(words) != std::string::npos || child.exit_code(); },
             std::chrono::seconds(20), std::chrono::milliseconds(20));
  return read_whole_file(log);
}

// The helper every program writes its files with.

TEST(OutputPaths, ARegularFileIsReplacedWhole) {
  TempDir dir;
  write_text(dir.file("f"), "old and longer\n");
  write_file_atomically(dir.file("f"), "new\n");
  EXPECT_EQ(read_whole_file(dir.file("f")), "new\n");
  EXPECT_EQ(kind_at(dir.file("f")), S_IFREG);
  for (const auto& e : fs::directory_iterator(dir.path()))  // no temporary file left behind
    EXPECT_EQ(e.path().filename(), "f");
}

TEST(OutputPaths, ALinkToARegularFileStaysALinkAndItsTargetIsReplaced) {
  TempDir dir;
  fs::create_directory(dir.file("elsewhere"));
  write_text(dir.file("elsewhere/target"), "old\n");
  make_link("elsewhere/target", dir.file("link"));
  write_file_atomically(dir.file("link"), "new\n");
  EXPECT_EQ(kind_at(dir.file("link")), S_IFLNK) << "the link was replaced by a file";
  EXPECT_EQ(read_whole_file(dir.file("elsewhere/target")), "new\n");
  for (const auto& e : fs::directory_iterator(dir.file("elsewhere")))  // the temporary file was in the target's folder
    EXPECT_EQ(e.path().filename(), "target");
}

TEST(OutputPaths, AFifoIsWrittenInPlaceAlsoThroughALink) {
  TempDir dir;
  make_fifo(dir.file("fifo"));
  make_link("fifo", dir.file("link"));
  for (const std::string& path : {dir.file("fifo"), dir.file("link")}) {
    FifoReader reader(dir.file("fifo"));
    try {
      write_file_atomically(path, "through " + path + "\n");
    } catch (const std::exception& e) {
      ADD_FAILURE() << path << ": " << e.what();
    }
    EXPECT_EQ(reader.finish(), "through " + path + "\n");
    EXPECT_EQ(kind_at(dir.file("fifo")), S_IFIFO) << "the FIFO was replaced";
    EXPECT_EQ(kind_at(dir.file("link")), S_IFLNK) << "the link was replaced";
  }
}

TEST(OutputPaths, ACharacterDeviceIsWrittenInPlace) {
  TempDir dir;
  if (!make_null_device(dir.file("null"))) GTEST_SKIP() << "needs root to make a character device (mknod)";
  make_link("null", dir.file("link"));
  for (const std::string& path : {dir.file("null"), dir.file("link")}) {
    EXPECT_NO_THROW(write_file_atomically(path, "into the void\n")) << path;
    EXPECT_EQ(kind_at(dir.file("null")), S_IFCHR) << "the device node was replaced";
    EXPECT_EQ(kind_at(dir.file("link")), S_IFLNK) << "the link was replaced";
  }
}

// What cannot take a file is refused with its name and what it is; it is
// left as it was.
TEST(OutputPaths, AFolderABlockDeviceOrALinkToNothingIsRefusedAndLeftAlone) {
  TempDir dir;
  fs::create_directory(dir.file("folder"));
  make_link("missing", dir.file("dangling"));
  std::vector<std::pair<std::string, std::string>> cases = {{dir.file("folder"), "is a folder"},
                                                            {dir.file("dangling"), "points to nothing"}};
  if (::mknod(dir.file("disk").c_str(), S_IFBLK | 0600, ::makedev(7, 250)) == 0)
    cases.push_back({dir.file("disk"), "is a block device"});
  else
    std::printf("[ SKIPPED  ] the block device case: needs root to make one (mknod)\n");
  for (const auto& [path, words] : cases) {
    mode_t before = kind_at(path);
    try {
      write_file_atomically(path, "x\n");
      ADD_FAILURE() << path << " was written";
    } catch (const std::exception& e) {
      EXPECT_NE(std::string(e.what()).find(path), std::string::npos) << e.what();
      EXPECT_NE(std::string(e.what()).find(words), std::string::npos) << e.what();
    }
    EXPECT_EQ(kind_at(path), before) << path << " was changed";
  }
}

TEST(OutputPaths, ADashIsStandardOutput) {
  TempDir dir;
  fs::path was = fs::current_path();
  fs::current_path(dir.path());  // where a file named "-" would land
  int pipe_fds[2];
  ASSERT_EQ(::pipe(pipe_fds), 0);
  std::fflush(stdout);
  int saved = ::dup(1);
  ::dup2(pipe_fds[1], 1);
  std::string error;
  try {
    write_file_atomically("-", "to stdout\n");
  } catch (const std::exception& e) {
    error = e.what();
  }
  ::dup2(saved, 1);
  ::close(saved);
  fs::current_path(was);
  ::close(pipe_fds[1]);
  char buf[64] = {};
  ssize_t n = ::read(pipe_fds[0], buf, sizeof buf - 1);
  ::close(pipe_fds[0]);
  EXPECT_EQ(error, "");
  EXPECT_EQ(std::string(buf, n > 0 ? n : 0), "to stdout\n");
  EXPECT_FALSE(fs::exists(dir.file("-"))) << "a file named '-' was made";
}

// results/latest is pointed at each new run only while it is a link (or
// absent): a file or a folder someone put there stays as it was.
TEST(OutputPaths, ResultsLatestIsReplacedOnlyWhenItIsALink) {
  TempDir dir;
  std::string root = dir.file("results"), latest = root + "/latest";
  fs::create_directories(root);
  write_text(latest, "mine\n");
  harness::RunFolder over_a_file(root, root + "/first", harness::FolderUse::kNew);
  EXPECT_EQ(kind_at(latest), S_IFREG);
  EXPECT_EQ(read_whole_file(latest), "mine\n");
  fs::remove(latest);
  fs::create_directory(latest);
  harness::RunFolder over_a_folder(root, root + "/second", harness::FolderUse::kNew);
  EXPECT_EQ(kind_at(latest), S_IFDIR);
  fs::remove(latest);
  harness::RunFolder into_nothing(root, root + "/third", harness::FolderUse::kNew);
  EXPECT_EQ(fs::read_symlink(latest), into_nothing.dir());
  harness::RunFolder over_its_link(root, root + "/fourth", harness::FolderUse::kNew);
  EXPECT_EQ(fs::read_symlink(latest), over_its_link.dir());
  for (const auto& e : fs::directory_iterator(root))  // no temporary link left behind
    EXPECT_EQ(e.path().filename().string().rfind(".latest", 0), std::string::npos) << e.path();
}

// latest is the newest of the results root's own runs: a run folder
// elsewhere (--out /tmp/x) neither makes nor moves it, nor the root.
TEST(OutputPaths, ARunFolderOutsideTheResultsRootLeavesLatestAlone) {
  TempDir dir;
  std::string root = dir.file("results"), latest = root + "/latest";
  harness::RunFolder elsewhere(root, dir.file("elsewhere"), harness::FolderUse::kNew);
  EXPECT_FALSE(fs::exists(root)) << "--out elsewhere made " << root;
  harness::RunFolder inside(root, root + "/first", harness::FolderUse::kNew);
  EXPECT_EQ(fs::read_symlink(latest), inside.dir());
  harness::RunFolder elsewhere_again(root, dir.file("elsewhere-2"), harness::FolderUse::kNew);
  EXPECT_EQ(fs::read_symlink(latest), inside.dir()) << "moved by a run outside the root";
}

// The programs, end to end: the flags that name a file to write.

TEST(OutputPaths, TheClientWritesItsRecordIntoAFifoThroughALink) {
  TempDir dir;
  ServerProcess server("raw-udp");
  make_fifo(dir.file("fifo"));
  make_link("fifo", dir.file("record"));
  FifoReader reader(dir.file("fifo"));
  ProcessResult r = run_program(client_argv(server, dir.file("record")), std::chrono::seconds(30));
  std::string text = reader.finish();
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(kind_at(dir.file("record")), S_IFLNK) << "the link was replaced";
  EXPECT_EQ(kind_at(dir.file("fifo")), S_IFIFO) << "the FIFO was replaced";
  ASSERT_FALSE(text.empty()) << "nothing came through the FIFO: " << r.err;
  EXPECT_EQ(CallRecord::parse(text).calls.size(), 3u);
}

TEST(OutputPaths, TheClientWritesItsRecordToAStandInForDevNull) {
  TempDir dir;
  if (!make_null_device(dir.file("null"))) GTEST_SKIP() << "needs root to make a character device (mknod)";
  ServerProcess server("raw-udp");
  ProcessResult r = run_program(client_argv(server, dir.file("null")), std::chrono::seconds(30));
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(kind_at(dir.file("null")), S_IFCHR) << "the device node was replaced by a regular file";
}

TEST(OutputPaths, TheClientWritesRecordDashToStandardOutput) {
  TempDir dir;
  ServerProcess server("raw-udp");
  ProcessResult r = run_program(in_folder(dir.path(), client_argv(server, "-")), std::chrono::seconds(30));
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_FALSE(fs::exists(dir.file("-"))) << "--record - made a file named '-'";
  ASSERT_FALSE(r.out.empty()) << r.err;
  EXPECT_EQ(CallRecord::parse(r.out).calls.size(), 3u);
}

// The server's files: the ready file (written once serving) and the ledger
// (written on SIGTERM), both to standard output.
TEST(OutputPaths, TheServerWritesItsReadyFileAndLedgerToStandardOutput) {
  TempDir dir;
  std::string log = dir.file("server.out");
  Child server(in_folder(dir.path(), {bin("rpclab-server"), "--transport", "raw-udp", "--ready-file", "-",
                                      "--ledger", "-"}), log);
  wait_for_output(server, log, "\"port\"");
  int code = server.stop(SIGTERM);
  std::string out = read_whole_file(log);
  EXPECT_EQ(code, 0) << out;
  EXPECT_NE(out.find("{\"pid\":"), std::string::npos) << out;
  EXPECT_NE(out.find("RPCLEDG1"), std::string::npos) << "no ledger on stdout: " << out;
  EXPECT_FALSE(fs::exists(dir.file("-"))) << "a file named '-' was made";
}

TEST(OutputPaths, TheLinkProbeWritesItsReadyFileToStandardOutput) {
  TempDir dir;
  std::string log = dir.file("probe.out");
  Child probe(in_folder(dir.path(), {bin("rpclab-linkprobe"), "reflect", "--listen", "127.0.0.1:0", "--ready-file",
                                     "-"}), log);
  std::string out = wait_for_output(probe, log, "ready");
  probe.stop(SIGTERM);
  EXPECT_NE(out.find("ready"), std::string::npos) << out;
  EXPECT_FALSE(fs::exists(dir.file("-"))) << "--ready-file - made a file named '-'";
}

}  // namespace
}  // namespace rpclab::test
