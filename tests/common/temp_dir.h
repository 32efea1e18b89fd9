// TempDir: one fresh directory under /tmp for a test, removed with everything in it at the end
// (write permission is restored first, for tests that take it away).
//
//   blobtune::testing::TempDir dir("blobtune-store");
//   options.directory = dir.Sub("db");
//
// Thread-safety: path() and Sub() may be called from any thread; a TempDir belongs to one test.
#ifndef BLOBTUNE_TESTS_COMMON_TEMP_DIR_H_
#define BLOBTUNE_TESTS_COMMON_TEMP_DIR_H_

#include <stdlib.h>

#include <filesystem>
#include <stdexcept>
#include <string>
#include <string_view>

namespace blobtune::testing {

class TempDir {
 public:
  explicit TempDir(std::string_view prefix = "blobtune") {
    std::string pattern = "/tmp/" + std::string(prefix) + "-XXXXXX";
    if (mkdtemp(pattern.data()) == nullptr) throw std::runtime_error("mkdtemp failed");
    path_ = pattern;
  }
  ~TempDir() {
    std::error_code ignored;
    std::filesystem::permissions(path_, std::filesystem::perms::owner_all,
                                 std::filesystem::perm_options::add, ignored);
    std::filesystem::remove_all(path_, ignored);
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;

  const std::string& path() const { return path_; }
  std::string Sub(std::string_view name) const { return path_ + "/" + std::string(name); }

 private:
  std::string path_;
};

}  // namespace blobtune::testing

#endif  // BLOBTUNE_TESTS_COMMON_TEMP_DIR_H_
