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
#include <thread>

#include "core/atomic_file.h"
#include "core/call_record.h"
#include "harness/harness_e2e_util.h"
#include "support/process.h"
#include "support/server_process.h"
#include "support/temp_dir.h"

namespace rpclab::test {
namespace {

namespace fs = std::filesystem;

// Reads a FIFO until its writer closes it, on a thread of its own, so a
// program can write into it while the test waits for that program.
class FifoReader {
 public:
  explicit FifoReader(std::string path) : path_(std::move(path)), thread_([this] { run(); }) {}
  ~FifoReader() { finish(); }

  // What was read. A reader still waiting for a writer that never came is
  // given one that writes nothing, so this never blocks.
  std::string finish() {
    if (thread_.joinable()) {
      int fd = ::open(path_.c_str(), O_WRONLY | O_NONBLOCK | O_CLOEXEC);
      if (fd >= 0) ::close(fd);
      thread_.join();
    }
    return data_;
  }

 private:
  void run() {
    int fd = ::open(path_.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) return;
    char buf[4096];
    for (ssize_t n; (n = ::read(fd, buf, sizeof buf)) != 0;) {
      if (n < 0 && errno == EINTR) continue;
      if (n < 0) break;
      data_.append(buf, static_cast<size_t>(n));
    }
    ::close(fd);
  }

  std::string path_, data_;
  std::thread thread_;
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

// Runs argv with `dir` as its working folder, so a file named "-" would land there.
ProcessResult run_in(const std::string& dir, const std::vector<std::string>& argv) {
  std::vector<std::string> sh = {"sh", "-c", "cd \"$0\" && exec \"$@\"", dir};
  sh.insert(sh.end(), argv.begin(), argv.end());
  return run_program(sh, std::chrono::seconds(30));
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
  ::close(pipe_fds[1]);
  char buf[64] = {};
  ssize_t n = ::read(pipe_fds[0], buf, sizeof buf - 1);
  ::close(pipe_fds[0]);
  EXPECT_EQ(error, "");
  EXPECT_EQ(std::string(buf, n > 0 ? n : 0), "to stdout\n");
  EXPECT_FALSE(fs::exists("-")) << "a file named '-' was made in " << fs::current_path();
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
  ProcessResult r = run_in(dir.path(), client_argv(server, "-"));
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_FALSE(fs::exists(dir.file("-"))) << "--record - made a file named '-'";
  ASSERT_FALSE(r.out.empty()) << r.err;
  EXPECT_EQ(CallRecord::parse(r.out).calls.size(), 3u);
}

// The server's files: the ready file (written once serving) and the ledger
// (written on SIGTERM), both to standard output.
TEST(OutputPaths, TheServerWritesItsReadyFileAndLedgerToStandardOutput) {
  TempDir dir;
  std::vector<std::string> argv = {bin("rpclab-server"), "--transport", "raw-udp", "--ready-file", "-",
                                   "--ledger",           "-"};
  std::string log = dir.file("server.out");
  std::vector<std::string> sh = {"sh", "-c", "cd \"$0\" && exec \"$@\"", dir.path()};
  sh.insert(sh.end(), argv.begin(), argv.end());
  Child server(sh, log);
  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(20);
  while (read_whole_file(log).find("\"port\"") == std::string::npos && !server.exit_code() &&
         std::chrono::steady_clock::now() < deadline)
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
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
  std::vector<std::string> sh = {"sh", "-c", "cd \"$0\" && exec \"$@\"", dir.path(), bin("rpclab-linkprobe"),
                                 "reflect", "--listen", "127.0.0.1:0", "--ready-file", "-"};
  Child probe(sh, log);
  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(20);
  while (read_whole_file(log).find("ready") == std::string::npos && !probe.exit_code() &&
         std::chrono::steady_clock::now() < deadline)
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  probe.stop(SIGTERM);
  EXPECT_NE(read_whole_file(log).find("ready"), std::string::npos) << read_whole_file(log);
  EXPECT_FALSE(fs::exists(dir.file("-"))) << "--ready-file - made a file named '-'";
}

}  // namespace
}  // namespace rpclab::test
