// tuner.cpp: the tuning cache and the search over a variant's candidates.
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

bool same_place(const nlohmann::json& entry, const TuningKey& key) {
  return entry.value("lab", "") == key.lab && entry.value("variant", "") == key.variant &&
         entry.value("device", "") == key.device && entry.value("driver", "") == key.driver &&
         entry.value("dtype", "") == key.dtype && entry.value("size_class", "") == key.size_class;
}

}  // namespace

std::string TuningKey::text() const {
  return lab + " " + variant + " " + dtype + " " + size_class + " on " + device + " (driver " +
         driver + ")";
}

std::string size_class(double work) {
  const int exponent = work >= 1 ? static_cast<int>(std::lround(std::log2(work))) : 0;
  return "2^" + std::to_string(exponent);
}

std::string TuningCache::default_path() {
  if (const char* path = std::getenv("LAB_TUNING_CACHE"); path != nullptr && *path != '\0') {
    return path;
  }
  if (const char* xdg = std::getenv("XDG_CACHE_HOME"); xdg != nullptr && *xdg != '\0') {
    return std::string(xdg) + "/opencl-labs/tuning.json";
  }
  const char* home = std::getenv("HOME");
  return std::string(home != nullptr ? home : ".") + "/.cache/opencl-labs/tuning.json";
}

TuningCache::TuningCache(std::string path) : path_(std::move(path)) {}

void TuningCache::load() {
  entries_ = nlohmann::json::array();
  warning_.clear();
  std::error_code error;
  if (!std::filesystem::exists(path_, error)) return;
  if (std::filesystem::is_directory(path_, error)) {
    warning_ = "the tuning cache " + path_ +
               " is a folder, not a file: using the defaults; set LAB_TUNING_CACHE to a file "
               "such as " +
               (std::filesystem::path(path_) / "tuning.json").string();
    return;
  }
  std::ifstream in(path_);
  if (!in) {
    warning_ = "the tuning cache " + path_ + " cannot be read: using the defaults";
    return;
  }
  try {
    const nlohmann::json data = nlohmann::json::parse(in);
    if (!data.is_object() || !data.contains("entries") || !data["entries"].is_array()) {
      throw std::runtime_error("no \"entries\" list");
    }
    for (const auto& entry : data["entries"]) {
      if (entry.is_object() && entry.contains("tunables") && entry["tunables"].is_object()) {
        entries_.push_back(entry);
      }
    }
  } catch (const std::exception&) {
    warning_ = "the tuning cache " + path_ +
               " is not a cache this suite wrote (corrupt JSON?): using the defaults; --tune "
               "writes a new one";
    entries_ = nlohmann::json::array();
  }
}

CachedTuning TuningCache::find(const TuningKey& key) const {
  CachedTuning found;
  for (const auto& entry : entries_) {
    if (!same_place(entry, key)) continue;
    if (entry.value("source_sha256", "") != key.source_sha256) {
      found.stale = "the tuned setting for " + key.variant +
                    " was measured with another version of its kernel: using the defaults "
                    "(run --tune again)";
      continue;
    }
    try {
      for (const auto& [name, value] : entry["tunables"].items()) {
        found.values.emplace_back(name, value.get<std::int64_t>());
      }
      found.rate = entry.value("rate", 0.0);
      found.unit = entry.value("unit", "");
      found.stale.clear();
    } catch (const std::exception&) {
      found = {};
      found.stale = "the tuned setting for " + key.variant +
                    " in the cache is not a list of whole numbers: using the defaults";
    }
    return found;
  }
  return found;
}

void TuningCache::store(const TuningKey& key, const TunableValues& values, double rate,
                        const std::string& unit) {
  nlohmann::json entry = {{"lab", key.lab},
                          {"variant", key.variant},
                          {"device", key.device},
                          {"driver", key.driver},
                          {"source_sha256", key.source_sha256},
                          {"dtype", key.dtype},
                          {"size_class", key.size_class},
                          {"rate", rate},
                          {"unit", unit},
                          {"tuned_at", static_cast<std::int64_t>(std::time(nullptr))}};
  nlohmann::json tunables = nlohmann::json::object();
  for (const auto& [name, value] : values) tunables[name] = value;
  entry["tunables"] = tunables;
  auto& list = entries_;
  list.erase(std::remove_if(list.begin(), list.end(),
                            [&](const nlohmann::json& e) { return same_place(e, key); }),
             list.end());
  list.push_back(entry);
}

void TuningCache::save() const {
  const std::filesystem::path file(path_);
  std::error_code error;
  if (file.has_parent_path()) std::filesystem::create_directories(file.parent_path(), error);
  const std::string temporary = path_ + ".tmp";
  {
    std::ofstream out(temporary, std::ios::trunc);
    out << nlohmann::json{{"version", 1}, {"entries", entries_}}.dump(2) << "\n";
    if (!out) {
      throw RuntimeError("cannot write the tuning cache " + temporary +
                         ": set LAB_TUNING_CACHE or XDG_CACHE_HOME to a writable folder");
    }
  }
  std::filesystem::rename(temporary, file, error);
  if (error) {
    throw RuntimeError("cannot replace the tuning cache " + path_ + " (" + error.message() +
                       "): set LAB_TUNING_CACHE or XDG_CACHE_HOME to a writable folder");
  }
}

void TuningCache::require_writable() const {
  const std::filesystem::path file(path_);
  std::error_code error;
  if (std::filesystem::is_directory(file, error)) {
    throw UsageError("--tune: the tuning cache " + path_ +
                     " is a folder, not a file: set LAB_TUNING_CACHE to a file such as " +
                     (file / "tuning.json").string());
  }
  if (file.has_parent_path()) std::filesystem::create_directories(file.parent_path(), error);
  const std::string probe = path_ + ".tmp";
  const bool writable = static_cast<bool>(std::ofstream(probe, std::ios::app));
  std::filesystem::remove(probe, error);
  if (!writable) {
    throw UsageError("--tune: cannot write the tuning cache " + path_ +
                     ": set LAB_TUNING_CACHE (or XDG_CACHE_HOME) to a file in a writable folder");
  }
}

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

RecordedTunings::RecordedTunings(const std::string& json_text) {
  const nlohmann::json data = nlohmann::json::parse(json_text, nullptr, false);
  if (data.is_discarded() || !data.is_object() || !data.contains("entries") ||
      !data["entries"].is_array()) {
    throw std::runtime_error("the recorded tunings are not JSON with an \"entries\" list");
  }
  for (const auto& entry : data["entries"]) {
    if (entry.is_object() && entry.contains("tunables") && entry["tunables"].is_object()) {
      entries_.push_back(entry);
    }
  }
}

const RecordedTunings& RecordedTunings::compiled_in() {
  static const RecordedTunings recorded(compiled_in_text());
  return recorded;
}

CachedTuning RecordedTunings::find(const TuningKey& key) const {
  const auto exponent = [](const std::string& size) {
    return size.rfind("2^", 0) == 0 ? std::atoi(size.c_str() + 2) : 0;
  };
  const int wanted = exponent(key.size_class);
  const nlohmann::json* nearest = nullptr;
  int distance = 0;
  for (const auto& entry : entries_) {
    if (entry.value("lab", "") != key.lab || entry.value("variant", "") != key.variant ||
        entry.value("device", "") != key.device || entry.value("dtype", "") != key.dtype) {
      continue;
    }
    const int from = exponent(entry.value("size_class", ""));
    const int d = std::abs(from - wanted);
    if (nearest == nullptr || d < distance ||
        (d == distance && from < exponent(nearest->value("size_class", "")))) {
      nearest = &entry;
      distance = d;
    }
  }
  CachedTuning found;
  if (nearest == nullptr) return found;
  for (const auto& [name, value] : (*nearest)["tunables"].items()) {
    if (!value.is_number_integer()) return {};
    found.values.emplace_back(name, value.get<std::int64_t>());
  }
  found.rate = nearest->value("rate", 0.0);
  found.unit = nearest->value("unit", "");
  return found;
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
