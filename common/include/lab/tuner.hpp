// tuner.hpp: searching a variant's tunables on the device at hand, and remembering the best.
// The search reads the family's table (each tunable's candidates); every candidate runs through
// the lab's own build, run and verify path, so a wrong result is never kept. The best setting is
// stored per device, driver, kernel source, element type and size class in a JSON cache, and
// later runs start from it. The variant driver is the one user of Tuner; the cache and the
// search are internals (lab::detail), public only to the unit tests.
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
namespace detail {
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

}  // namespace detail

// One row's tuning before it runs: its place in the cache, the setting the defaults, the cache
// and the command line give it, and every tuning its launches may use.
struct RowTuning {
  detail::TuningKey key;
  std::vector<std::string> names;  // the row's tunables
  Tuning tuning;
  std::string source;            // "tuned" when the cache supplied values, else "default"
  std::string warnings;          // the cache's lines about this row, said when it runs
  std::vector<Tuning> launches;  // `tuning`, and with --tune every candidate
};

// A lab's tuning: its tuning cache (read once), and for each row the setting it runs with or,
// with --tune, a search for a better one.
class Tuner {
 public:
  Tuner(const TuningOptions& options, const std::vector<Tunable>& tunables, Tuning defaults,
        std::string lab);

  // A row's tuning; its kernel file is read (its SHA-256 is part of the cache's key).
  RowTuning resolve(const Env& env, const Options& options, const std::string& variant,
                    const std::string& kernel_file, const std::vector<std::string>& names,
                    const std::string& dtype, double work) const;

  // --tune was given: each row's run is preceded by search().
  bool searching() const;
  // Tries the candidates of the row's tunables that the command line did not fix, each through
  // `evaluate` (the lab's run, quietly), until the budget is spent; prints the best few on
  // `progress`, stores the best in the cache and returns it. Throws Error (exit 1) when no
  // candidate gave a right result.
  Tuning search(const RowTuning& row, const std::string& unit,
                const std::function<detail::TrialOutcome(const Tuning&)>& evaluate,
                std::ostream& progress);

 private:
  const TuningOptions& options_;
  std::vector<Tunable> tunables_;
  Tuning defaults_;
  std::string lab_;
  detail::TuningCache cache_;
};

}  // namespace lab
