// variants.cpp: tunable values, their options, and the shared launch path of a family's variants.
#include "lab/variants.hpp"

#include "lab/error.hpp"

#include <numeric>
#include <stdexcept>

namespace lab {
namespace {

// "a, b or c".
std::string either(const std::vector<std::string>& words) {
  std::string text;
  for (std::size_t i = 0; i < words.size(); ++i) {
    text += (i == 0 ? "" : (i + 1 == words.size() ? " or " : ", ")) + words[i];
  }
  return text;
}

std::string trim(const std::string& text) {
  const auto begin = text.find_first_not_of(" \t");
  if (begin == std::string::npos) return "";
  return text.substr(begin, text.find_last_not_of(" \t") - begin + 1);
}

std::vector<std::string> split(const std::string& text, char separator) {
  std::vector<std::string> parts;
  std::size_t begin = 0;
  while (true) {
    const std::size_t end = text.find(separator, begin);
    parts.push_back(trim(text.substr(begin, end == std::string::npos ? end : end - begin)));
    if (end == std::string::npos) return parts;
    begin = end + 1;
  }
}

// A value for `tunable` as written after `what` ("--ts", "--tunable TS"): a whole number within
// its bounds, or one of its labels.
std::int64_t parse_value(const Tunable& tunable, const std::string& what, const std::string& text) {
  for (std::size_t i = 0; i < tunable.labels.size(); ++i) {
    if (text == tunable.labels[i]) return static_cast<std::int64_t>(i);
  }
  if (!tunable.labels.empty() && text.find_first_not_of("0123456789") != std::string::npos) {
    std::vector<std::string> choices = tunable.labels;
    choices.push_back("0.." + std::to_string(tunable.labels.size() - 1));
    throw UsageError(what + ": '" + text + "' is not one of " + either(choices));
  }
  return static_cast<std::int64_t>(
      parse_size(what, text, std::uint64_t(tunable.min), std::uint64_t(tunable.max)));
}

// "65536", or "2^30" for the large powers of two.
std::string bound_text(std::int64_t value) {
  if (value >= (1 << 20) && (value & (value - 1)) == 0) {
    int exponent = 0;
    while ((std::int64_t{1} << exponent) < value) ++exponent;
    return "2^" + std::to_string(exponent);
  }
  return std::to_string(value);
}

}  // namespace

void Tuning::set(const std::string& name, std::int64_t value, Origin origin) {
  for (auto& entry : entries_) {
    if (entry.name == name) {
      entry.value = value;
      entry.origin = std::max(entry.origin, origin);
      return;
    }
  }
  entries_.push_back({name, value, origin});
}

Tuning Tuning::with(std::initializer_list<std::pair<std::string, std::int64_t>> values) const {
  Tuning copy = *this;
  for (const auto& [name, value] : values) copy.set(name, value);
  return copy;
}

std::int64_t Tuning::operator[](const std::string& name) const {
  for (const auto& entry : entries_) {
    if (entry.name == name) return entry.value;
  }
  throw std::logic_error("no tunable named " + name);
}

bool Tuning::has(const std::string& name) const {
  return std::any_of(entries_.begin(), entries_.end(),
                     [&](const Entry& entry) { return entry.name == name; });
}

Origin Tuning::origin(const std::string& name) const {
  for (const auto& entry : entries_) {
    if (entry.name == name) return entry.origin;
  }
  return Origin::default_value;
}

std::string Tuning::text(const std::vector<std::string>& names) const {
  std::string text;
  const auto add = [&](const std::string& name, std::int64_t value) {
    text += (text.empty() ? "" : " ") + name + "=" + std::to_string(value);
  };
  if (names.empty()) {
    for (const auto& entry : entries_) add(entry.name, entry.value);
  } else {
    for (const auto& [name, value] : values(names)) add(name, value);
  }
  return text;
}

std::vector<std::pair<std::string, std::int64_t>> Tuning::values(
    const std::vector<std::string>& names) const {
  std::vector<std::pair<std::string, std::int64_t>> values;
  for (const auto& name : names) values.emplace_back(name, (*this)[name]);
  return values;
}

std::vector<TunableValue> Tuning::row(const std::vector<std::string>& names) const {
  std::vector<TunableValue> row;
  for (const auto& name : names) row.push_back({name, (*this)[name], origin(name)});
  return row;
}

void require_one_variant_for_kernel_file(const Options& options, const std::string& variant) {
  if (!options.kernel_file.empty() && variant == "all") {
    throw UsageError("--kernel-file replaces one variant's kernel: add --variant NAME");
  }
}

TuningOptions::TuningOptions(Cli& cli, const std::vector<Tunable>& tunables)
    : tunables_(tunables), program_(cli.name()) {
  // One option per distinct Tunable::option, in the table's order.
  std::vector<std::string> options;
  for (const auto& t : tunables_) {
    if (!t.option.empty() && std::find(options.begin(), options.end(), t.option) == options.end()) {
      options.push_back(t.option);
    }
  }
  for (const auto& option : options) {
    std::vector<const Tunable*> shared;
    for (const auto& t : tunables_) {
      if (t.option == option) shared.push_back(&t);
    }
    std::string& text = texts_[option];
    const Tunable& first = *shared.front();
    if (first.position >= 0) {
      std::string names, meanings;
      for (const auto* t : shared) {
        names += (names.empty() ? "" : ",") + t->name;
        meanings += (meanings.empty() ? "" : "; ") + t->name + " " + t->meaning;
      }
      cli.add_text(option, text,
                   names + " (leading values; the rest keep their defaults): " + meanings);
    } else if (!first.labels.empty()) {
      cli.add_choice(option, text, first.meaning + " (" + first.name + ")", first.labels);
    } else {
      std::string names;
      for (const auto* t : shared) names += (names.empty() ? "" : ", ") + t->name;
      cli.add_text(option, text,
                   first.meaning + " (" + names + ", at most " + bound_text(first.max) + ")");
    }
  }
  std::string names;
  for (const auto& t : tunables_) names += (names.empty() ? "" : ", ") + t.name;
  cli.add_text(
      "--tunable", by_name_,
      "NAME=VALUE[,NAME=VALUE...]: set tunables by their kernel macro names (" + names + ")");
  cli.add_flag("--tune", tune_,
               "Search the chosen variant's tunables on this device (each candidate built, run "
               "and checked), print the best few and keep the best in the tuning cache");
  cli.add_size("--tune-budget", budget_, "Seconds --tune may spend (default 60)");
  cli.add_flag("--no-tuned", no_tuned_,
               "Ignore the tuning cache and the recorded settings: run with the defaults and what "
               "the command line gives");
}

void TuningOptions::check() {
  try {
    check_given();
  } catch (const UsageError& error) {
    throw UsageError(std::string(error.what()) + " (run '" + program_ +
                     " --help' for the options)");
  }
}

void TuningOptions::check_given() {
  given_.clear();
  given_by_.clear();
  // One value per tunable: a second one (from another option, or twice in --tunable) would be
  // silently overridden by whichever the parser read last.
  const auto give = [this](const std::string& name, std::int64_t value, const std::string& by) {
    for (std::size_t i = 0; i < given_.size(); ++i) {
      if (given_[i].first == name) {
        throw UsageError(name + " is set twice, by " + given_by_[i] + " and by " + by +
                         ": give it once");
      }
    }
    given_.emplace_back(name, value);
    given_by_.push_back(by);
  };
  for (const auto& [option, text] : texts_) {
    if (text.empty()) continue;
    std::vector<const Tunable*> shared;
    for (const auto& t : tunables_) {
      if (t.option == option) shared.push_back(&t);
    }
    if (shared.front()->position < 0) {
      for (const auto* t : shared)
        give(t->name, parse_value(*t, option, text), option + " " + text);
      continue;
    }
    const auto values = split(text, ',');
    if (values.size() > shared.size()) {
      std::string names;
      for (const auto* t : shared) names += (names.empty() ? "" : ",") + t->name;
      throw UsageError(option + " takes at most " + std::to_string(shared.size()) + " values (" +
                       names + "), not " + std::to_string(values.size()));
    }
    for (std::size_t i = 0; i < values.size(); ++i) {
      give(shared[i]->name, parse_value(*shared[i], option, values[i]), option + " " + text);
    }
  }
  if (by_name_.empty()) return;
  for (const auto& item : split(by_name_, ',')) {
    const auto equals = item.find('=');
    const std::string name = trim(item.substr(0, equals));
    const auto t = std::find_if(tunables_.begin(), tunables_.end(),
                                [&](const Tunable& tunable) { return tunable.name == name; });
    if (equals == std::string::npos || t == tunables_.end()) {
      std::vector<std::string> names;
      for (const auto& tunable : tunables_) names.push_back(tunable.name);
      throw UsageError("--tunable: '" + item + "' is not NAME=VALUE for a tunable of this lab (" +
                       either(names) + ")");
    }
    give(name, parse_value(*t, "--tunable " + name, item.substr(equals + 1)),
         "--tunable " + trim(item));
  }
}

std::vector<std::string> TuningOptions::unused(const VariantTunables& chosen,
                                               const VariantTunables& all) const {
  std::vector<std::string> notes;
  const auto uses = [](const std::vector<std::string>& names, const std::string& name) {
    return std::find(names.begin(), names.end(), name) != names.end();
  };
  // An option is used when a chosen variant uses any tunable it sets (--local sets several).
  for (std::size_t i = 0; i < given_.size(); ++i) {
    if (i > 0 && given_by_[i] == given_by_[i - 1]) continue;  // one note per option
    bool used = false;
    std::vector<std::string> names;  // what this option sets
    for (std::size_t j = 0; j < given_.size(); ++j) {
      if (given_by_[j] != given_by_[i]) continue;
      names.push_back(given_[j].first);
      for (const auto& [variant, tunables] : chosen) used = used || uses(tunables, given_[j].first);
    }
    if (used) continue;
    std::vector<std::string> users, runs;
    for (const auto& [variant, tunables] : all) {
      for (const auto& name : names) {
        if (uses(tunables, name) && !uses(users, variant)) users.push_back(variant);
      }
    }
    for (const auto& variant : chosen) runs.push_back(variant.first);
    std::string listed;
    for (const auto& name : names) listed += (listed.empty() ? "" : ", ") + name;
    notes.push_back(given_by_[i] + ": " + (runs.size() == 1 ? "variant " : "variants ") +
                    either(runs) + (runs.size() == 1 ? " does" : " do") + " not use " + listed +
                    (users.empty() ? std::string(": ignored")
                                   : ": ignored (--variant " + either(users) + " uses it)"));
  }
  return notes;
}

Tuning TuningOptions::apply(Tuning defaults) const {
  for (const auto& [name, value] : given_) defaults.set(name, value, Origin::command_line);
  return defaults;
}

std::string power_of_two_refusal(const std::string& why, const std::string& name,
                                 const std::string& option, std::uint64_t value) {
  if (value != 0 && (value & (value - 1)) == 0) return "";
  std::uint64_t below = 1;
  while (below * 2 < value) below *= 2;
  return why + ", so " + name + " must be a power of two, and " + option + " " +
         std::to_string(value) + " is not: choose " + std::to_string(below) + " or " +
         std::to_string(below * 2) + " (1, 2, 4, ... up to the device's limit)";
}

std::string unknown_variant(const std::string& family, const std::string& name,
                            const std::vector<std::string>& names) {
  std::vector<std::string> choices = names;
  choices.push_back("all");
  return "--variant " + name + ": " + family + " has no such variant; choose " + either(choices);
}

std::string variant_help(const std::vector<std::pair<std::string, std::string>>& rows) {
  std::string text;
  for (const auto& [name, summary] : rows) {
    text += (text.empty() ? "" : ", ") + name + (summary.empty() ? "" : " (" + summary + ")");
  }
  return text + ", or all";
}

Defines tunable_defines(const std::vector<Tunable>& tunables, const std::vector<std::string>& names,
                        const Tuning& tuning) {
  Defines defines;
  for (const auto& t : tunables) {
    if (!t.define || std::find(names.begin(), names.end(), t.name) == names.end()) continue;
    defines.push_back({t.name, std::to_string(tuning[t.name]), t.option});
  }
  return defines;
}

std::string limit_advice(const std::vector<Tunable>& tunables,
                         const std::vector<std::string>& names, unsigned what,
                         const std::string& fallback) {
  std::vector<const Tunable*> growing;
  for (const auto& t : tunables) {
    if ((t.grows & what) != 0 && std::find(names.begin(), names.end(), t.name) != names.end()) {
      growing.push_back(&t);
    }
  }
  if (growing.empty()) return fallback;
  // "TSM, TSN or TSK (--regtile)", one part per option, in the table's order.
  std::vector<std::string> options, parts;
  for (const auto* t : growing) {
    if (std::find(options.begin(), options.end(), t->option) == options.end()) {
      options.push_back(t->option);
    }
  }
  for (const auto& option : options) {
    std::vector<std::string> names;
    for (const auto* t : growing) {
      if (t->option == option) names.push_back(t->name);
    }
    const bool powers = std::all_of(growing.begin(), growing.end(), [&](const Tunable* t) {
      return t->option != option || t->power_of_two;
    });
    parts.push_back(either(names) + " (" + option + (powers ? ", a power of two" : "") + ")");
  }
  return "choose a smaller " + either(parts);
}

}  // namespace lab
