// progress.cpp: the progress line of long steps, on stderr.
#include "lab/progress.hpp"

#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <vector>

namespace lab {

namespace {

// The steps alive, outermost first: only the last one draws.
std::mutex steps_mutex;
std::vector<Progress*> steps;

bool stderr_is_terminal() { return ::isatty(STDERR_FILENO) == 1; }

}  // namespace

bool progress_enabled() {
  if (const char* value = std::getenv("LAB_PROGRESS"); value != nullptr && *value != '\0') {
    const std::string v(value);
    if (v == "1" || v == "on") return true;
    if (v == "0" || v == "off") return false;
  }
  return stderr_is_terminal();
}

std::string format_duration(double seconds) {
  char text[64];
  if (seconds < 100) {
    std::snprintf(text, sizeof text, "%.0f s", std::max(seconds, 0.0));
  } else if (seconds < 3600) {
    const long whole = std::lround(seconds);
    std::snprintf(text, sizeof text, "%ld min %ld s", whole / 60, whole % 60);
  } else if (seconds < 2 * 86400) {
    std::snprintf(text, sizeof text, "%.1f hours", seconds / 3600);
  } else {
    std::snprintf(text, sizeof text, "%.1f days", seconds / 86400);
  }
  return text;
}

std::string Progress::line(const std::string& what, double done, double total,
                           const std::string& detail, double seconds) {
  std::string text = what;
  if (total > 0) {
    const double share = std::clamp(done / total, 0.0, 1.0);
    char percent[16];
    std::snprintf(percent, sizeof percent, " %.0f%%", 100 * share);
    text += percent;
  }
  if (!detail.empty()) text += ", " + detail;
  text += ", " + format_duration(seconds);
  if (total > 0 && done > 0 && done < total) {
    text += ", about " + format_duration(seconds * (total - done) / done) + " left";
  }
  return text;
}

Progress::Progress(std::string what, double total)
    : what_(std::move(what)), total_(total), start_(std::chrono::steady_clock::now()) {
  {
    const std::lock_guard<std::mutex> lock(steps_mutex);
    steps.push_back(this);
  }
  if (progress_enabled()) ticker_ = std::thread([this] { tick(); });
}

Progress::~Progress() {
  {
    const std::lock_guard<std::mutex> lock(mutex_);
    stop_ = true;
  }
  wake_.notify_all();
  if (ticker_.joinable()) ticker_.join();
  const std::lock_guard<std::mutex> lock(steps_mutex);
  steps.erase(std::remove(steps.begin(), steps.end(), this), steps.end());
}

void Progress::add(double units) {
  const std::lock_guard<std::mutex> lock(mutex_);
  done_ += units;
}

void Progress::detail(const std::string& text) {
  const std::lock_guard<std::mutex> lock(mutex_);
  detail_ = text;
}

void Progress::note(const std::string& text) {
  const std::lock_guard<std::mutex> lock(steps_mutex);
  if (!steps.empty()) steps.back()->detail(text);
}

void Progress::tick() {
  const bool terminal = stderr_is_terminal();
  const auto period = std::chrono::milliseconds(terminal ? 500 : 10000);
  std::unique_lock<std::mutex> lock(mutex_);
  // Quiet for the first kQuietSeconds: a short step shows nothing.
  if (wake_.wait_for(lock, std::chrono::duration<double>(kQuietSeconds),
                     [this] { return stop_; })) {
    return;
  }
  do {
    // (steps_mutex is never taken while holding mutex_: note() takes them the other way round)
    lock.unlock();
    bool innermost;
    {
      const std::lock_guard<std::mutex> steps_lock(steps_mutex);
      innermost = !steps.empty() && steps.back() == this;
    }
    lock.lock();
    if (innermost && !stop_) draw();
  } while (!wake_.wait_for(lock, period, [this] { return stop_; }));
  if (shown_ && terminal) std::cerr << "\r\033[K" << std::flush;  // the line goes with the step
}

void Progress::draw() {
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
  const std::string text = line(what_, done_, total_, detail_, seconds);
  if (stderr_is_terminal()) {
    std::cerr << "\r\033[K" << text << std::flush;
  } else {
    std::cerr << text << "\n" << std::flush;
  }
  shown_ = true;
}

}  // namespace lab
