// progress.hpp: a long step (a large host reference, a sweep over variants) says on stderr what
// it is doing and how far along it is.
#pragma once

#include <chrono>
#include <condition_variable>
#include <mutex>
#include <string>
#include <thread>

namespace lab {

// Whether progress is shown: LAB_PROGRESS=1 (or "on") always, LAB_PROGRESS=0 (or "off") never,
// else only when stderr is a terminal. stdout (the table, --json, --csv) never carries it.
bool progress_enabled();

// A duration for people, rounded to what a wait needs: "8 s", "3 min 20 s", "2.1 hours",
// "3.5 days".
std::string format_duration(double seconds);

// One step, alive for as long as it runs. Nothing is shown for a step that ends within
// kQuietSeconds. After that, on a terminal, one line on stderr is redrawn twice a second
// ("matmul: host reference 37%, 12 s, about 20 s left") and erased when the step ends; forced on
// (LAB_PROGRESS=1) with stderr not a terminal (a log), a line every 10 seconds instead. Steps
// nest: the innermost alive one is shown, and note() gives it a detail ("run 3 of 12").
// Thread-safe: worker threads may call add().
class Progress {
 public:
  static constexpr double kQuietSeconds = 2.0;

  // `what` names the step; `total` counts its units (0: unknown, only the time is shown).
  explicit Progress(std::string what, double total = 0);
  ~Progress();
  Progress(const Progress&) = delete;
  Progress& operator=(const Progress&) = delete;

  void add(double units);  // units finished
  void detail(const std::string& text);

  // Sets the detail of the innermost step alive, if any (the timing loop's "run 3 of 12").
  static void note(const std::string& text);

  // The line shown for `done` of `total` units, a detail and the seconds elapsed (for tests).
  static std::string line(const std::string& what, double done, double total,
                          const std::string& detail, double seconds);

 private:
  void tick();
  void draw();

  std::string what_;
  double total_ = 0;
  double done_ = 0;
  std::string detail_;
  std::chrono::steady_clock::time_point start_;
  bool shown_ = false;
  bool stop_ = false;
  std::mutex mutex_;
  std::condition_variable wake_;
  std::thread ticker_;  // only while progress is enabled
};

}  // namespace lab
