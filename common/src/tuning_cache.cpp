// tuning_cache.cpp: where tunings are kept. The key of a tuning (lab, variant, device, driver,
// element type, size class), the tuning cache file (read, looked up, saved, checked writable) and
// the suite's recorded settings (tuned.json, compiled in). tuner.cpp decides which of them a row
// runs with, and runs the --tune search that fills the cache.
#include "lab/tuner.hpp"

#include "lab/error.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <system_error>

namespace lab {

std::string user_cache_file(const char* override_variable, const std::string& name) {
  if (const char* path = std::getenv(override_variable); path != nullptr && *path != '\0') {
    return path;
  }
  if (const char* xdg = std::getenv("XDG_CACHE_HOME"); xdg != nullptr && *xdg != '\0') {
    return std::string(xdg) + "/opencl-labs/" + name;
  }
  const char* home = std::getenv("HOME");
  return std::string(home != nullptr ? home : ".") + "/.cache/opencl-labs/" + name;
}

namespace detail {

namespace {

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
  return user_cache_file("LAB_TUNING_CACHE", "tuning.json");
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

}  // namespace lab
