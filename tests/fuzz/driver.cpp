// SPDX-License-Identifier: MIT
// The fuzz targets' main outside the fuzz build: feeds every file of the directories (or the
// files) it is given to LLVMFuzzerTestOneInput once, in name order, so that the corpus and its
// regression inputs run as a test in every build, the sanitized one included. A target that
// finds a bug aborts; this prints the input it was running first.
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "fuzz_input.hpp"

namespace fs = std::filesystem;

// libFuzzer's build (clang 16) looks for reads of a returned function's stack frame by default,
// GCC's AddressSanitizer only when asked: the sanitized build asks, so that an input that found
// one under libFuzzer finds it again here. ASAN_OPTIONS still overrides it. Unused elsewhere.
extern "C" const char* __asan_default_options();
extern "C" const char* __asan_default_options() {
  return "detect_stack_use_after_return=1";
}

namespace {

std::vector<fs::path> inputs_of(const char* arg) {
  std::vector<fs::path> inputs;
  if (!fs::is_directory(arg))
    return {fs::path(arg)};
  for (const auto& entry : fs::recursive_directory_iterator(arg))
    if (entry.is_regular_file())
      inputs.push_back(entry.path());
  std::sort(inputs.begin(), inputs.end());
  return inputs;
}

} // namespace

int main(int argc, char** argv) {
  std::size_t count = 0;
  for (int i = 1; i < argc; ++i)
    for (const auto& path : inputs_of(argv[i])) {
      std::ifstream in(path, std::ios::binary);
      if (!in) {
        std::fprintf(stderr, "fuzz driver: error: cannot read %s\n", path.c_str());
        return 1;
      }
      std::string bytes{std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
      std::fprintf(stderr, "%s\n", path.c_str());
      LLVMFuzzerTestOneInput(reinterpret_cast<const std::uint8_t*>(bytes.data()), bytes.size());
      ++count;
    }
  if (count == 0) {
    std::fprintf(stderr, "fuzz driver: error: no inputs\n");
    return 1;
  }
  std::printf("%zu inputs ran\n", count);
  return 0;
}
