// Running the build's programs as user nobody (setpriv), for the tests of
// what a run without root does.
//
// Nobody cannot run the build where it is when the clone sits under a 0700
// home (/root/rpclab, or ~/rpclab made by adduser): exec needs every folder
// on the path searchable. setpriv would still start the first program, as
// it execs before it drops its capabilities, but that program could not
// start its siblings. So the programs are copied into a folder under /tmp
// that this object makes and removes, and run from there.
#pragma once

#include <sys/types.h>

#include <string>
#include <vector>

namespace rpclab::test {

class NobodyPrograms {
 public:
  // Copies each of `programs` (names of the build's programs) into
  // bin/ of a new folder under /tmp; bin/ gets `bin_mode` (0755 lets
  // nobody run them). work/ beside it is writable by nobody.
  explicit NobodyPrograms(const std::vector<std::string>& programs, mode_t bin_mode = 0755);
  ~NobodyPrograms();
  NobodyPrograms(const NobodyPrograms&) = delete;
  NobodyPrograms& operator=(const NobodyPrograms&) = delete;

  // Why these tests cannot run here ("" when they can); the caller skips with it.
  const std::string& why_not() const { return why_not_; }
  std::string bin_dir() const { return root_ + "/bin"; }
  std::string work(const std::string& name) const { return root_ + "/work/" + name; }
  // setpriv ... BIN_DIR/args[0] args[1..]: args[0] run as nobody from the copy.
  std::vector<std::string> argv(std::vector<std::string> args) const;

 private:
  std::string root_;
  std::string why_not_;
};

}  // namespace rpclab::test
