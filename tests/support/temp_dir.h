// A fresh folder under $TMPDIR (or /tmp) for one test's files, removed
// with everything in it when the object goes away.
#pragma once

#include <string>

namespace rpclab::test {

class TempDir {
 public:
  TempDir();
  ~TempDir();
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;

  const std::string& path() const { return path_; }
  std::string file(const std::string& name) const { return path_ + "/" + name; }
  // Writes `text` to the file `name` (a path inside the folder), making its
  // folders first; returns the file's path.
  std::string plant(const std::string& name, const std::string& text) const;

 private:
  std::string path_;
};

}  // namespace rpclab::test
