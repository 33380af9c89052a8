// tuner.hpp: searching a variant's tunables on the device at hand, and remembering the best.
// The search reads the family's table (each tunable's candidates); every candidate runs through
// the lab's own build, run and verify path, so a wrong result is never kept. The best setting is
// stored per device, driver, kernel source, element type and size class in a JSON cache, and
// later runs start from it.
#pragma once

#include "lab/report.hpp"
#include "lab/variants.hpp"

#include <cstdint>
#include <functional>
#include <iosfwd>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace lab {

using TunableValues = std::vector<std::pair<std::string, std::int64_t>>;

// Where a tuned setting applies. A different kernel source (its SHA-256), device or driver makes
// the entry another key: the cache never hands a setting to a kernel it was not measured with.
struct TuningKey {
  std::string lab;
  std::string variant;
  std::string device;
  std::string driver;
  std::string source_sha256;
  std::string dtype;
  std::string size_class;
  std::string text() const;  // "matmul regtiled float 2^30 on DEVICE (driver X)"
};

// The size class of a problem of `work` units (elements, or M*N*K): the nearest power of two,
// "2^20". Sizes in one class share a tuned setting.
std::string size_class(double work);

// What the cache holds for a key.
struct CachedTuning {
  TunableValues values;  // empty: nothing usable
  double rate = 0;
  std::string unit;
  // Why an entry for this variant, device and size could not be used (another kernel source), or
  // "" when there was none or it was used.
  std::string stale;
};

class TuningCache {
 public:
  // LAB_TUNING_CACHE if set, else $XDG_CACHE_HOME/opencl-labs/tuning.json, else
  // $HOME/.cache/opencl-labs/tuning.json.
  static std::string default_path();

  explicit TuningCache(std::string path = default_path());
  const std::string& path() const { return path_; }

  // Reads the file. A missing file is an empty cache; an unreadable or corrupt one is empty too,
  // and warning() says why in one line.
  void load();
  const std::string& warning() const { return warning_; }

  CachedTuning find(const TuningKey& key) const;
  // Replaces the entry for `key`.
  void store(const TuningKey& key, const TunableValues& values, double rate,
             const std::string& unit);
  // Writes the cache (a temporary file renamed over the old one), creating its folder; throws
  // RuntimeError with a sentence when it cannot.
  void save() const;
  // Whether save() can work: its folder exists (or can be made) and a file can be written there.
  // Throws UsageError naming the path otherwise, so that --tune is refused before any search.
  void require_writable() const;

 private:
  std::string path_;
  std::string warning_;
  nlohmann::json entries_ = nlohmann::json::array();
};

// One candidate's outcome, from the lab's run path.
struct TrialOutcome {
  bool passed = false;  // every element checked and right
  double rate = 0;      // in the row's unit (higher is better)
};

struct Trial {
  Tuning tuning;
  TunableValues values;  // the variant's tunables
  TrialOutcome outcome;
  std::string skipped;  // why the candidate could not run (a limit, a kernel's #error), or ""
};

// Every combination of the candidates of `names` (the variant's tunables that have candidates),
// the others at `base`: `base` itself first, so the default is always measured, then the
// settings that change one tunable of it, then the rest in a fixed shuffled order.
std::vector<Tuning> tuning_candidates(const std::vector<Tunable>& tunables,
                                      const std::vector<std::string>& names, const Tuning& base);

// Runs `evaluate` on the candidates in order until `budget_s` seconds have passed (at least one
// runs), reporting progress and the best so far on `progress`. A candidate whose evaluation
// throws lab::Error was refused by a limit or a kernel's guard: it is skipped, with the reason.
// Returns every trial, the passing ones first, fastest first.
std::vector<Trial> run_trials(const std::vector<Tuning>& candidates,
                              const std::vector<std::string>& names, double budget_s,
                              const std::function<TrialOutcome(const Tuning&)>& evaluate,
                              std::ostream& progress);

// A lab's tuning for one run: the cache, a key for each chosen variant, and the tuning each runs
// with (the defaults, the cache, the command line; with --tune a search first). The search's
// progress goes to `err`; warnings about the cache to lab::notes().
class LabTuning {
 public:
  LabTuning(const TunableOptions& options, const std::vector<Tunable>& tunables, Tuning defaults,
            std::string lab, std::ostream& err);

  // Adds the next variant; returns the tunings its launches may use (the resolved one, and with
  // --tune every candidate), so the lab can size its guard zones for the furthest.
  std::vector<Tuning> add(const Env& env, const Options& options, const std::string& variant,
                          const std::string& kernel_file, const std::vector<std::string>& names,
                          const std::string& dtype, double work);

  // Variant `index` (in the order added) run through `run(tuning, options, quiet)`, the lab's
  // build, run and verify path returning a Result (or an optional one, empty when skipped): with
  // --tune its candidates first (quiet, 1 + 3 runs each), then the run itself, whose row says
  // where its tuning came from.
  template <typename Run>
  auto run(std::size_t index, const std::string& unit, const Options& options, Run run) {
    Options trial = options;  // a candidate: 1 warm-up and 3 timed runs, quietly
    trial.warmup = 1;
    trial.reps = 3;
    trial.verbose = false;
    const VariantTuning tuned = tuning(index, unit, [&](const Tuning& t) {
      const auto outcome = run(t, trial, true);
      const Result& r = result_of(outcome);
      return TrialOutcome{r.passed, r.rate};
    });
    auto row = run(tuned.tuning, options, false);
    if (Result* r = result_ptr(row)) r->tuning = tuned.source;
    return row;
  }

 private:
  // What a variant runs with, and where it came from ("tuned" or "default").
  struct VariantTuning {
    Tuning tuning;
    std::string source;
  };
  // Each added variant's key, tunables and the setting the defaults, the cache and the command
  // line give it (resolved once, in add()), with the cache's warnings about it.
  struct Added {
    TuningKey key;
    std::vector<std::string> names;
    VariantTuning resolved;
    std::string warnings;
  };
  // With --tune the search (progress on err_), else the resolved setting (its warnings to
  // lab::notes(), once).
  VariantTuning tuning(std::size_t index, const std::string& unit,
                       const std::function<TrialOutcome(const Tuning&)>& evaluate);
  static const Result& result_of(const Result& r) { return r; }
  static const Result& result_of(const std::optional<Result>& r) { return r.value(); }
  static Result* result_ptr(Result& r) { return &r; }
  static Result* result_ptr(std::optional<Result>& r) { return r ? &*r : nullptr; }

  const TunableOptions& options_;
  std::vector<Tunable> tunables_;
  Tuning defaults_;
  std::string lab_;
  std::ostream& err_;
  TuningCache cache_;
  std::vector<Added> added_;
};

}  // namespace lab
