// terminal.hpp: the width of the terminal the output goes to, and words wrapped to a width. Header
// only, so the launcher (which links no OpenCL) sizes the tour exactly as the labs size their
// --summary lines.
#pragma once

#include <sys/ioctl.h>
#include <unistd.h>

#include <cstddef>
#include <cstdlib>
#include <string>
#include <vector>

namespace lab {

// The summary and the tour never get narrower than this: below it the columns would hold a few
// letters each. (A narrower terminal wraps the lines itself.)
constexpr std::size_t kMinSummaryWidth = 72;

// The terminal's width in characters: COLUMNS when it is a positive number (the launcher sets it
// for the labs it runs, whose output it shares), else the width of the terminal on standard output
// (TIOCGWINSZ), else 80 (a pipe or a file).
inline std::size_t terminal_width() {
  if (const char* columns = std::getenv("COLUMNS"); columns != nullptr && *columns != '\0') {
    char* end = nullptr;
    const long value = std::strtol(columns, &end, 10);
    if (*end == '\0' && value > 0 && value < 10000) return static_cast<std::size_t>(value);
  }
  winsize size{};
  if (::ioctl(STDOUT_FILENO, TIOCGWINSZ, &size) == 0 && size.ws_col > 0) return size.ws_col;
  return 80;
}

// `text` cut into lines of at most `width` characters at spaces. A word longer than `width` (a
// path, say) stays whole on a line of its own, so it can still be copied: the one case of a line
// wider than `width`.
inline std::vector<std::string> wrap_words(const std::string& text, std::size_t width) {
  std::vector<std::string> lines;
  std::string line;
  std::size_t at = 0;
  while (at <= text.size()) {
    std::size_t end = text.find(' ', at);
    if (end == std::string::npos) end = text.size();
    const std::string word = text.substr(at, end - at);
    at = end + 1;
    if (word.empty()) continue;
    if (!line.empty() && line.size() + 1 + word.size() > width) lines.push_back(line), line.clear();
    line += (line.empty() ? "" : " ") + word;
  }
  if (!line.empty() || lines.empty()) lines.push_back(line);
  return lines;
}

}  // namespace lab
