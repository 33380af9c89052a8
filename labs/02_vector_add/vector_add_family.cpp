// vector_add_family.cpp: vector_add's table and helpers.
#include "vector_add_family.hpp"

#include <algorithm>
#include <cctype>

namespace vector_add {
namespace {

// "queued", "submitted", "running", "complete" (or "an error status") for a sentence.
std::string status_name(cl_int status) {
  std::string name = lab::execution_status_name(status);
  if (status >= 0) name = name.substr(3);
  std::transform(name.begin(), name.end(), name.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return name;
}

// Elements per work-item: 1, PER_ITEM for per_item, VW for vector.
std::uint64_t per_work_item(const std::string& variant, const lab::Tuning& t) {
  if (variant == "per_item") return static_cast<std::uint64_t>(t["PER_ITEM"]);
  if (variant == "vector") return static_cast<std::uint64_t>(t["VW"]);
  return 1;
}

Family make_family() {
  Family f;
  f.name = "vector_add";
  // 12 bytes an element: a and b read, c written, 4-byte floats (make_row scales it for double).
  f.work = [](const Length& n) { return lab::Work{double(n), 12.0 * double(n)}; };

  lab::Tunable local;
  local.name = "LOCAL";
  local.option = "--local";
  local.meaning = "Work-group size (default: the runtime chooses)";
  local.max = std::int64_t(lab::kMaxSize);
  local.candidates = {0, 64, 128, 256, 512, 1024};
  local.define = false;
  local.grows = lab::kGrowsGroup;
  lab::Tunable per_item = local;
  per_item.name = "PER_ITEM";
  per_item.option = "--per-item";
  per_item.meaning = "Elements each work-item adds (fewer work-items; --variant per_item)";
  per_item.candidates = {2, 4, 8, 16, 32};
  per_item.grows = lab::kGrowsNothing;
  lab::Tunable width = per_item;
  width.name = "VW";
  width.option = "--vector-width";
  width.meaning = "vector: elements per work-item as one vector (2, 4, 8 or 16)";
  width.min = 2;
  width.max = 16;
  width.candidates = {2, 4, 8, 16};
  width.define = true;
  f.tunables = {local, per_item, width};

  Variant element;
  element.name = "element";
  element.summary = "one element per work-item";
  element.kernel_file = "vector_add.cl";
  element.kernel_name = "vector_add";
  element.tunables = {"LOCAL"};
  Variant strided = element;
  strided.name = "per_item";
  strided.summary = "PER_ITEM elements per work-item, a grid stride apart";
  strided.kernel_name = "vector_add_per_item";
  strided.tunables = {"LOCAL", "PER_ITEM"};
  Variant vector = element;
  vector.name = "vector";
  vector.summary = "VW consecutive elements per work-item as one vector load and store";
  vector.kernel_name = "vector_add_vector";
  vector.tunables = {"LOCAL", "VW"};
  f.variants = {element, strided, vector};

  for (auto& v : f.variants) {
    const std::string name = v.name;
    // The global size is padded up to whole work-groups; the kernels bounds-check.
    v.plan = [name](const Length& n, const lab::Tuning& t) -> lab::NDRangePlan {
      const std::uint64_t l = static_cast<std::uint64_t>(t["LOCAL"]);
      const std::uint64_t count = lab::ceil_div(n, per_work_item(name, t));
      if (l == 0) return {{count}, {}};
      return {{lab::round_up(count, l)}, {l}};
    };
    v.covers = [name](const Length& n, const lab::Tuning& t) -> std::vector<std::uint64_t> {
      const std::uint64_t l = static_cast<std::uint64_t>(t["LOCAL"]);
      const std::uint64_t per = per_work_item(name, t);
      const std::uint64_t count = lab::ceil_div(n, per);
      return {(l == 0 ? count : lab::round_up(count, l)) * per};
    };
  }
  return f;
}

}  // namespace

void add_size_and_variant(lab::Cli& cli, Settings& s) {
  cli.add_size("-n,--size", s.n, "Number of elements (any n >= 1; 2^20 works too)");
  cli.add_choice("--dtype", s.dtype, "Element type: float or double (a device with fp64)",
                 {"float", "double"});
  lab::add_variant_option(cli, family(), s.variant,
                          " (default: element, or per_item with --per-item)");
}

void parse_options(lab::Cli& cli, Settings& s, lab::TuningOptions& tuning_options) {
  cli.add_choice("--mode", s.mode, "How buffers are made: copy|use|alloc|write",
                 lab::buffer_mode_names());
  cli.add_flag("--no-fetch", s.no_fetch,
               "Result buffer uses USE_HOST_PTR and is made visible by a map, not a read");
  cli.add_flag("--skip-finish", s.skip_finish,
               "Look at the result before waiting for the kernel (the missing clFinish)");
  cli.parse();
  tuning_options.check();
  const lab::Tuning tuning = tuning_options.apply(default_tuning());
  const bool per_item_given = tuning.given("PER_ITEM") && tuning["PER_ITEM"] > 1;
  if (s.variant.empty()) s.variant = per_item_given ? "per_item" : "element";
  if (s.variant == "element" && per_item_given) {
    throw lab::UsageError("--per-item " + std::to_string(tuning["PER_ITEM"]) +
                          " needs --variant per_item: element adds one element per work-item");
  }
  lab::require_kernel_files(cli.options(), family().kernel_files(s.variant), "--variant");
  lab::check_tunables_used(tuning_options, family(), s.variant, lab::notes());
}

const Family& family() {
  static const Family table = make_family();
  return table;
}

lab::Tuning default_tuning() {
  lab::Tuning t;
  t.set("LOCAL", 0);
  t.set("PER_ITEM", 4);
  t.set("VW", 4);
  return t;
}

lab::KernelSignature signature(const std::string& real) {
  return {"",
          {{"", "ulong", "n"},
           {"global", real + "*", "a", true},
           {"global", real + "*", "b", true},
           {"global", real + "*", "c"}}};
}

std::uint64_t guard_reach(const lab::Env& env,
                          const lab::VariantDriver<Length, lab::NoExtra>& driver, Length n,
                          std::size_t element) {
  std::uint64_t reach = 0;
  const std::uint64_t group_max = env.device.getInfo<CL_DEVICE_MAX_WORK_GROUP_SIZE>();
  driver.each_launch([&](const Variant& v, const lab::Tuning& t) {
    if (std::uint64_t(t["LOCAL"]) <= group_max) reach = std::max(reach, v.covers(n, t)[0] - n);
  });
  if (reach > 0) {
    lab::check_memory(env, (n + reach) * element, 3, 3,
                      "-n, --local or --per-item (the launch, padded to whole work-groups of "
                      "work-items that add PER_ITEM elements each, reaches " +
                          std::to_string(n + reach) + " elements)");
  }
  return reach;
}

template <typename T>
nlohmann::json look_without_waiting(const cl::CommandQueue& queue, lab::GuardedArray<T>& host,
                                    const cl::Buffer& c, const T* reference, Length n,
                                    const std::function<cl::Event()>& launch, std::ostream& out) {
  host.reset(queue, c);
  const cl::Event event = launch();
  const cl_int before = event.getInfo<CL_EVENT_COMMAND_EXECUTION_STATUS>();
  std::uint64_t seen = 0;
  const T* values = host.data();
  for (std::uint64_t i = 0; i < n; ++i) seen += values[i] == reference[i] ? 1 : 0;
  const cl_int after = event.getInfo<CL_EVENT_COMMAND_EXECUTION_STATUS>();
  out << "Without waiting: " << seen << " of " << n
      << " elements of the host array c held a+b (the kernel was " << status_name(before)
      << " when the host started looking, " << status_name(after)
      << " when it finished).\nAfter waiting (a map): the check below.\n";
  event.wait();
  return {{"correct_before_wait", seen},
          {"status_when_looking", status_name(before)},
          {"status_after_looking", status_name(after)}};
}

template nlohmann::json look_without_waiting<float>(const cl::CommandQueue&,
                                                    lab::GuardedArray<float>&, const cl::Buffer&,
                                                    const float*, Length,
                                                    const std::function<cl::Event()>&,
                                                    std::ostream&);
template nlohmann::json look_without_waiting<double>(const cl::CommandQueue&,
                                                     lab::GuardedArray<double>&, const cl::Buffer&,
                                                     const double*, Length,
                                                     const std::function<cl::Event()>&,
                                                     std::ostream&);

std::string describe_outside(const lab::GuardCheck& guard) {
  std::string hint;
  if (guard.after > 0) hint = "padding work-items need the bounds check `if (i < n)`";
  if (guard.before > 0) {
    hint += std::string(hint.empty() ? "" : "; ") +
            "an index below 0 (element i of a and b goes to element i of c: check how the kernel "
            "computes the index it writes)";
  }
  return lab::describe_guard_writes(guard, "c", hint);
}

lab::CopyBaseline measure_yardstick(lab::Env& env, const lab::Options& options,
                                    const lab::Tuning& tuning, Length n, std::size_t element,
                                    std::ostream& out) {
  const std::uint64_t local = std::uint64_t(tuning["LOCAL"]);
  const std::uint64_t group_max = env.device.getInfo<CL_DEVICE_MAX_WORK_GROUP_SIZE>();
  // The copy moves floats: as many of them as the vectors have bytes / 4.
  return lab::measure_copy(env, options, n * element / 4, local <= group_max ? local : 0, out);
}

lab::Result make_row(const Variant& v, const lab::Tuning& t, const Settings& s,
                     const lab::Timing& timing, const lab::CheckResult& check,
                     const lab::GuardCheck& guard, std::ostream& err) {
  const std::string outside = describe_outside(guard);
  if (!outside.empty()) err << "vector_add: " << outside << "\n";
  lab::Result row = lab::bandwidth_row(
      v.name + " mode=" + s.mode + (s.host_result() ? " result=use" : ""),
      lab::Size("n", std::int64_t(s.n)), timing,
      family().work(s.n).bytes * (s.dtype == "double" ? 2 : 1), check, guard.total());
  row.tunables = t.row(v.tunables);
  return row;
}

int report(const lab::Cli& cli, const lab::Env& env, std::vector<lab::Result> rows,
           const lab::CopyBaseline& copy, nlohmann::json details, Length n, const std::string& mode,
           const std::string& dtype) {
  lab::Report report("vector_add", lab::describe_device(env));
  for (lab::Result& row : rows) {
    lab::relate_to_copy(row, copy);
    report.add(row);
  }
  report.details() = std::move(details);
  report.details()["n"] = n;
  report.details()["mode"] = mode;
  report.details()["dtype"] = dtype;
  report.details()["tolerance"] = lab::Tolerance::exact().describe();
  report.details()["copy"] = copy.details;
  report.print(cli.format(), std::cout);
  return report.exit_code();
}

}  // namespace vector_add
