// tuner.cpp: the tuning a row runs with, and the --tune search. A row's tuning is its defaults,
// then the suite's recorded setting, then the tuning cache's best, then the command line
// (tuning_cache.cpp keeps the last two); --tune runs a variant's candidates, keeps the best
// right one and stores it in the cache.
#include "lab/tuner.hpp"

#include "lab/error.hpp"
#include "lab/program.hpp"
#include "lab/sha256.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <ostream>
#include <random>
#include <sstream>
#include <system_error>

namespace lab {
namespace detail {

namespace {

std::string value_text(const TunableValues& values) {
  std::string text;
  for (const auto& [name, value] : values) {
    text += (text.empty() ? "" : " ") + name + "=" + std::to_string(value);
  }
  return text.empty() ? "(no tunables)" : text;
}

}  // namespace

std::vector<Tuning> tuning_candidates(const std::vector<Tunable>& tunables,
                                      const std::vector<std::string>& names, const Tuning& base) {
  std::vector<Tuning> out{base};
  for (const auto& name : names) {
    const auto t = std::find_if(tunables.begin(), tunables.end(),
                                [&](const Tunable& x) { return x.name == name; });
    if (t == tunables.end() || t->candidates.empty()) continue;
    std::vector<Tuning> grown;
    for (const Tuning& partial : out) {
      for (std::int64_t value : t->candidates) {
        Tuning next = partial;
        next.set(name, value);
        grown.push_back(next);
      }
    }
    out = std::move(grown);
  }
  // The base first, once; then its neighbours (one tunable changed), where a good default's
  // improvements usually are; then the rest in a fixed shuffled order, so a budget that stops
  // the search early has sampled the whole space, not one corner of it.
  const auto differences = [&](const Tuning& a) {
    int count = 0;
    for (const auto& name : names) count += a[name] != base[name] ? 1 : 0;
    return count;
  };
  out.erase(
      std::remove_if(out.begin(), out.end(), [&](const Tuning& a) { return differences(a) == 0; }),
      out.end());
  std::mt19937_64 order(0x5eed);
  std::shuffle(out.begin(), out.end(), order);
  std::stable_partition(out.begin(), out.end(),
                        [&](const Tuning& a) { return differences(a) == 1; });
  out.insert(out.begin(), base);
  return out;
}

std::vector<Trial> run_trials(const std::vector<Tuning>& candidates,
                              const std::vector<std::string>& names, double budget_s,
                              const std::function<TrialOutcome(const Tuning&)>& evaluate,
                              std::ostream& progress) {
  const auto start = std::chrono::steady_clock::now();
  const auto elapsed = [&] {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  };
  std::vector<Trial> trials;
  const Trial* best = nullptr;
  // The slowest trial so far: the next may take as long, and the run that follows the search
  // about as long again, so the search stops two of them short of the budget.
  double longest = 0;
  for (std::size_t i = 0; i < candidates.size(); ++i) {
    if (i > 0 && elapsed() + 2 * longest > budget_s) {
      progress << "tune: stopping after " << i << " of " << candidates.size()
               << " candidates: another would run past the budget of " << budget_s << " s\n";
      break;
    }
    Trial trial;
    trial.tuning = candidates[i];
    trial.values = candidates[i].values(names);
    const double before = elapsed();
    try {
      trial.outcome = evaluate(trial.tuning);
    } catch (const Error& e) {
      trial.skipped = e.what();
    }
    longest = std::max(longest, elapsed() - before);
    char line[96];
    std::snprintf(line, sizeof line, "tune: [%zu/%zu %.0f s] ", i + 1, candidates.size(),
                  elapsed());
    progress << line << value_text(trial.values) << ": ";
    if (!trial.skipped.empty()) {
      progress << "skipped (" << trial.skipped << ")";
    } else if (!trial.outcome.passed) {
      progress << "WRONG RESULT, not kept";
    } else {
      progress << trial.outcome.rate;
    }
    trials.push_back(std::move(trial));
    for (const Trial& t : trials) {
      if (t.skipped.empty() && t.outcome.passed &&
          (best == nullptr || t.outcome.rate > best->outcome.rate)) {
        best = &t;
      }
    }
    if (best != nullptr) progress << "; best so far " << value_text(best->values);
    progress << "\n";
    best = nullptr;  // trials may move when they grow
  }
  std::stable_sort(trials.begin(), trials.end(), [](const Trial& a, const Trial& b) {
    const bool good_a = a.skipped.empty() && a.outcome.passed;
    const bool good_b = b.skipped.empty() && b.outcome.passed;
    if (good_a != good_b) return good_a;
    return good_a && a.outcome.rate > b.outcome.rate;
  });
  return trials;
}

}  // namespace detail

using detail::CachedTuning;
using detail::RecordedTunings;
using detail::run_trials;
using detail::size_class;
using detail::Trial;
using detail::TrialOutcome;
using detail::TunableValues;
using detail::tuning_candidates;
using detail::TuningCache;
using detail::TuningKey;
using detail::value_text;

namespace {

// The key of `variant` on `env`'s device; the kernel file is looked up as the run path does.
TuningKey tuning_key(const Env& env, const Options& options, const std::string& lab,
                     const std::string& variant, const std::string& kernel_file,
                     const std::string& dtype, double work) {
  TuningKey key;
  key.lab = lab;
  key.variant = variant;
  key.device = env.device_name();
  key.driver = env.device.getInfo<CL_DRIVER_VERSION>();
  key.dtype = dtype;
  key.size_class = size_class(work);
  const std::string path = find_kernel_file(kernel_file, kernel_lookup(options), true);
  std::ifstream in(path, std::ios::binary);
  std::stringstream source;
  source << in.rdbuf();
  key.source_sha256 = sha256_hex(source.str());
  return key;
}

// Whether every value of `values` names one of `tunables` and lies within the command line's
// bounds, or is a value the table itself uses (LOCAL 0: the runtime's choice).
bool usable_values(const TunableValues& values, const std::vector<Tunable>& tunables,
                   const Tuning& defaults) {
  if (values.empty()) return false;
  for (const auto& [name, value] : values) {
    const auto t = std::find_if(tunables.begin(), tunables.end(),
                                [&](const Tunable& x) { return x.name == name; });
    const bool known =
        t != tunables.end() &&
        ((value >= t->min && value <= t->max) || defaults[name] == value ||
         std::find(t->candidates.begin(), t->candidates.end(), value) != t->candidates.end());
    if (!known) return false;
  }
  return true;
}

// The tuning a variant runs with: `defaults`, then the suite's recorded setting for the device
// (tuned.json), then the cache's best for `key` (neither with --no-tuned; stale or unusable
// entries print one warning line on `warnings`), then what the command line gives. `source`
// becomes "tuned" when the cache supplied values, "recorded" when tuned.json did, else "default".
Tuning resolve_tuning(const TuningOptions& options, const std::vector<Tunable>& tunables,
                      const Tuning& defaults, const RecordedTunings& recorded,
                      const TuningCache& cache, const TuningKey& key, std::string& source,
                      std::ostream& warnings) {
  source = "default";
  Tuning tuning = defaults;
  if (options.use_cache()) {
    const CachedTuning from_record = recorded.find(key);
    if (usable_values(from_record.values, tunables, defaults)) {
      for (const auto& [name, value] : from_record.values) {
        tuning.set(name, value, Origin::recorded);
      }
      source = "recorded";
    }
    const CachedTuning cached = cache.find(key);
    if (!cached.stale.empty()) warnings << "warning: " << cached.stale << "\n";
    if (usable_values(cached.values, tunables, defaults)) {
      for (const auto& [name, value] : cached.values) tuning.set(name, value, Origin::tuned);
      source = "tuned";
    } else if (!cached.values.empty()) {
      warnings << "warning: the tuned setting for " << key.variant << " in " << cache.path()
               << " names tunables this lab does not have or values out of bounds: using "
               << (source == "recorded" ? "the recorded setting" : "the defaults") << "\n";
    }
  }
  return options.apply(tuning);
}

// --tune for one variant: searches the candidates of `names` that the command line did not fix
// (the others at `base`), prints the best few on `out`, stores the best in `cache` and saves it,
// and returns it. Throws Error (exit 1) when no candidate gave a right result.
Tuning tune_variant(const std::vector<Tunable>& tunables, const std::vector<std::string>& names,
                    const Tuning& base, const TuningKey& key, double budget_s, TuningCache& cache,
                    const std::string& unit,
                    const std::function<TrialOutcome(const Tuning&)>& evaluate, std::ostream& out) {
  std::vector<std::string> free;
  for (const auto& name : names) {
    if (!base.given(name)) free.push_back(name);
  }
  const std::vector<Tuning> candidates = tuning_candidates(tunables, free, base);
  out << "tune: " << key.text() << ": " << candidates.size() << " candidates of "
      << (free.empty() ? std::string("(nothing to tune)") : value_text(base.values(free)))
      << ", budget " << budget_s << " s\n";
  const std::vector<Trial> trials = run_trials(candidates, free, budget_s, evaluate, out);
  const auto good = [](const Trial& t) { return t.skipped.empty() && t.outcome.passed; };
  const std::size_t wrong =
      static_cast<std::size_t>(std::count_if(trials.begin(), trials.end(), [](const Trial& t) {
        return t.skipped.empty() && !t.outcome.passed;
      }));
  if (trials.empty() || !good(trials.front())) {
    throw Error(1, "tune: no candidate of " + key.variant + " gave a right result (" +
                       std::to_string(wrong) + " wrong, " + std::to_string(trials.size() - wrong) +
                       " refused): fix the kernel before tuning it");
  }
  out << "tune: best of " << trials.size() << " tried (" << wrong << " wrong, not kept):\n";
  for (std::size_t i = 0; i < trials.size() && i < 5 && good(trials[i]); ++i) {
    out << "  " << i + 1 << ". " << value_text(trials[i].values) << ": " << trials[i].outcome.rate
        << " " << unit << "\n";
  }
  const Trial& best = trials.front();
  cache.store(key, best.tuning.values(names), best.outcome.rate, unit);
  cache.save();
  out << "tune: stored in " << cache.path() << "\n";
  Tuning found = best.tuning;
  for (const auto& name : free) found.set(name, found[name], Origin::tuned);
  return found;
}

// A lab's tuning cache, read unless --no-tuned (without --tune); a warning goes to lab::notes()
// as "LAB: warning: ...". With --tune, a UsageError when the cache cannot be written.
TuningCache open_tuning_cache(const TuningOptions& options, const std::string& lab) {
  TuningCache cache;
  // Before any search: a search whose result cannot be kept is refused, not run.
  if (options.tune()) cache.require_writable();
  if (options.use_cache() || options.tune()) {
    cache.load();
    if (!cache.warning().empty()) notes() << lab << ": warning: " << cache.warning() << "\n";
  }
  return cache;
}

// The tunings `names` may take in this run: the resolved one, or with --tune every candidate
// (a lab sizes its guard zones for the furthest launch among them).
std::vector<Tuning> launch_tunings(const TuningOptions& options,
                                   const std::vector<Tunable>& tunables,
                                   const std::vector<std::string>& names, const Tuning& defaults,
                                   const Tuning& resolved) {
  std::vector<Tuning> out{resolved};
  if (options.tune()) {
    for (const Tuning& t : tuning_candidates(tunables, names, options.apply(defaults))) {
      out.push_back(t);
    }
  }
  return out;
}

}  // namespace

Tuner::Tuner(const TuningOptions& options, const std::vector<Tunable>& tunables, Tuning defaults,
             std::string lab)
    : options_(options),
      tunables_(tunables),
      defaults_(std::move(defaults)),
      lab_(std::move(lab)),
      cache_(open_tuning_cache(options, lab_)) {}

RowTuning Tuner::resolve(const Env& env, const Options& options, const std::string& variant,
                         const std::string& kernel_file, const std::vector<std::string>& names,
                         const std::string& dtype, double work) const {
  RowTuning row;
  row.key = tuning_key(env, options, lab_, variant, kernel_file, dtype, work);
  row.names = names;
  std::ostringstream warnings;
  row.tuning = resolve_tuning(options_, tunables_, defaults_, RecordedTunings::compiled_in(),
                              cache_, row.key, row.source, warnings);
  row.warnings = warnings.str();
  row.launches = launch_tunings(options_, tunables_, names, defaults_, row.tuning);
  return row;
}

bool Tuner::searching() const { return options_.tune(); }

Tuning Tuner::search(const RowTuning& row, const std::string& unit,
                     const std::function<TrialOutcome(const Tuning&)>& evaluate,
                     std::ostream& progress) {
  return tune_variant(tunables_, row.names, options_.apply(defaults_), row.key,
                      options_.tune_budget(), cache_, unit, evaluate, progress);
}

}  // namespace lab
