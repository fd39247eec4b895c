// How the mocks read the answers a test writes: one line per device, its number first, then
// words. The file is read on every call, so a test can change the answers between calls.
#pragma once

#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

namespace mock_rows {

// The words after the number of every line for `index` in the file `env` names.
inline std::vector<std::vector<std::string>> rows(const char* env, long index) {
  std::vector<std::vector<std::string>> out;
  const char* path = std::getenv(env);
  if (!path) return out;
  std::ifstream in(path);
  std::string line;
  while (std::getline(in, line)) {
    std::istringstream f(line);
    long i = -1;
    if (!(f >> i) || i != index) continue;
    std::vector<std::string> words;
    for (std::string w; f >> w;) words.push_back(w);
    if (!words.empty()) out.push_back(words);
  }
  return out;
}

}  // namespace mock_rows
