// vector_add: c = a + b on an OpenCL device, checked element by element against the host and
// timed against copy kernels, the device's practical memory bandwidth.
#include "vector_add_family.hpp"

#include "lab/lab.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <iostream>
#include <limits>

namespace {

struct Settings {
  std::uint64_t n = std::uint64_t{1} << 24;  // elements
  std::string variant;                       // "": element, or per_item with --per-item N > 1
  std::string mode = "copy";
  bool no_fetch = false;
  bool skip_finish = false;
  // --no-fetch and --skip-finish read the result from the host's own array (USE_HOST_PTR).
  bool host_result() const { return no_fetch || skip_finish; }
};

// "queued", "submitted", "running", "complete" (or "an error status") for the sentence below.
std::string status_name(cl_int status) {
  std::string name = lab::execution_status_name(status);
  if (status >= 0) name = name.substr(3);
  std::transform(name.begin(), name.end(), name.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return name;
}

using Add = cl::KernelFunctor<cl_ulong, cl::Buffer, cl::Buffer, cl::Buffer>;

// Steps 5-7 for one variant with one tuning (a tuner's trial quietly): its kernel built and
// checked, launched and timed from events, every element of c compared with the reference.
struct RunRow {
  lab::Env& env;
  const Settings& s;
  lab::GuardedBuffer<float>& a;
  lab::GuardedBuffer<float>& b;
  lab::GuardedBuffer<float>& c;
  const lab::HostVector<float>& reference;
  const vector_add::Variant* first;  // the row --skip-finish looks at
  nlohmann::json& details;           // the report's details

  lab::Result operator()(const vector_add::Variant& v, const lab::Tuning& t,
                         const lab::Stage& stage) const {
    // 5. Program and kernel, checked against the arguments the host passes and the device
    const lab::PreparedKernel prepared =
        lab::prepare_kernel(env, stage.options, stage.out, vector_add::family(), v, s.n, t, {},
                            vector_add::signature(), sizeof(float));
    Add add(prepared.kernel);
    const auto& range = prepared.range;
    stage.out << v.name << ": n = " << s.n << ", work-items = " << range.global[0]
              << (range.local.empty() ? ", local chosen by the runtime"
                                      : ", local = " + std::to_string(range.local[0]))
              << ", buffers: " << s.mode << (s.host_result() ? " (result: USE_HOST_PTR)" : "")
              << "\n";

    // 6. Run: warm-up, then timed repetitions from profiling events, on a result that
    //    starts as NaN everywhere
    c.reset(env.queue);
    const cl::EnqueueArgs args(env.queue, lab::to_ndrange(range.global),
                               range.local.empty() ? cl::NullRange : lab::to_ndrange(range.local));
    const auto launch = [&] { return add(args, s.n, a.buffer(), b.buffer(), c.buffer()); };
    const lab::Timing timing = lab::time_launches(stage.options, launch, stage.out);
    if (s.skip_finish && !stage.trial && &v == first) look_without_waiting(launch, stage.out);

    // 7. Verify: every element, exactly (float addition is correctly rounded in OpenCL
    //    C), and nothing written outside c
    lab::CheckResult check;
    {
      const lab::Mapping<float> result = c.fetch(env.queue);
      check = lab::compare(result.data(), reference.data(), s.n, lab::Tolerance::exact(), stage.err,
                           "c");
    }
    const lab::GuardCheck guard = c.check_guards(env.queue);
    const std::string outside = lab::describe_guard_writes(
        guard, "c", "padding work-items need the bounds check `if (i < n)`");
    if (!outside.empty()) stage.err << "vector_add: " << outside << "\n";

    lab::Result row =
        lab::bandwidth_row(v.name + " mode=" + s.mode + (s.host_result() ? " result=use" : ""),
                           lab::Size("n", std::int64_t(s.n)), timing,
                           vector_add::family().work(s.n).bytes, check, guard.total());
    row.tunables = t.row(v.tunables);
    if (!stage.trial) {
      details["variants"][v.name] = {{"global", range.global},
                                     {"local", range.local.empty() ? 0 : range.local[0]},
                                     {"mean_wait_before_start_s", timing.mean_queued_to_start}};
    }
    return row;
  }

  // --skip-finish: resets c to NaN, launches, and looks at the host array before waiting.
  // Reading memory the device may be writing is exactly the bug Liu's Intermediate OpenCL
  // Programming shows.
  template <typename Launch>
  void look_without_waiting(const Launch& launch, std::ostream& out) const {
    c.reset(env.queue);
    const cl::Event event = launch();
    const cl_int before = event.getInfo<CL_EVENT_COMMAND_EXECUTION_STATUS>();
    std::uint64_t seen = 0;
    const float* host = c.host();
    for (std::uint64_t i = 0; i < s.n; ++i) seen += host[i] == reference[i] ? 1 : 0;
    const cl_int after = event.getInfo<CL_EVENT_COMMAND_EXECUTION_STATUS>();
    out << "Without waiting: " << seen << " of " << s.n
        << " elements of the host array c held a+b (the kernel was " << status_name(before)
        << " when the host started looking, " << status_name(after)
        << " when it finished).\nAfter waiting (a map): the check below.\n";
    details["skip_finish"] = {{"correct_before_wait", seen},
                              {"status_when_looking", status_name(before)},
                              {"status_after_looking", status_name(after)}};
  }
};

// Steps 3-8 for the chosen variants: host data and reference, tuning and buffers, each variant
// built, run and verified, and the report.
int run(lab::Cli& cli, lab::Env& env, const Settings& s, const lab::TuningOptions& tuning_options,
        const lab::Tuning& defaults) {
  const auto& opt = cli.options();
  const vector_add::Family& family = vector_add::family();
  const lab::BufferMode mode = lab::parse_buffer_mode(s.mode);
  const lab::Tuning tuning = tuning_options.apply(defaults);

  // 3. Host data and reference
  auto a = lab::random_vector<float>(s.n, lab::derive_seed(opt.seed, 0), 0.0f, 1.0f);
  auto b = lab::random_vector<float>(s.n, lab::derive_seed(opt.seed, 1), 0.0f, 1.0f);
  lab::HostVector<float> reference(s.n);
  for (std::uint64_t i = 0; i < s.n; ++i) reference[i] = a[i] + b[i];

  // 4. Buffers, each with guard zones as long as the furthest a padded launch overshoots n:
  //    a kernel that forgets its bounds check writes there, and the check below says so.
  //    With --tune, every candidate's launch counts.
  lab::VariantDriver driver(cli, env, family, s.variant, tuning_options, defaults, "float",
                            double(s.n));
  //    A work-group the device cannot run never launches (it is refused with its sentence
  //    before the build), so its padding does not count; the rest must fit in memory.
  std::uint64_t reach = 0;
  const std::uint64_t group_max = env.device.getInfo<CL_DEVICE_MAX_WORK_GROUP_SIZE>();
  driver.each_launch([&](const vector_add::Variant& v, const lab::Tuning& t) {
    if (std::uint64_t(t["LOCAL"]) <= group_max) {
      reach = std::max(reach, v.covers(s.n, t)[0] - s.n);
    }
  });
  if (reach > 0) {
    lab::check_memory(env, (s.n + reach) * sizeof(float), 3, 3,
                      "-n, --local or --per-item (the launch, padded to whole work-groups "
                      "of work-items that add PER_ITEM elements each, reaches " +
                          std::to_string(s.n + reach) + " elements)");
  }
  lab::GuardedBuffer<float> a_buf(env, mode, CL_MEM_READ_ONLY, s.n, reach, a.data());
  lab::GuardedBuffer<float> b_buf(env, mode, CL_MEM_READ_ONLY, s.n, reach, b.data());
  lab::GuardedBuffer<float> c_buf(env, s.host_result() ? lab::BufferMode::use : mode,
                                  CL_MEM_WRITE_ONLY, s.n, reach);

  // 5-7. Each variant with its tuning: build, run, verify; every run followed by one of the
  //      yardstick, the faster of a float and a float4 copy kernel over plain device buffers, in
  //      work-groups of LOCAL too (or the runtime's choice where LOCAL is past the device's
  //      limit: the rows then refuse it with their own sentence)
  nlohmann::json details = nlohmann::json::object();
  const std::uint64_t local = static_cast<std::uint64_t>(tuning["LOCAL"]);
  const lab::CopyBaseline copy = lab::measure_copy(
      env, opt, s.n, local <= env.device.getInfo<CL_DEVICE_MAX_WORK_GROUP_SIZE>() ? local : 0,
      cli.out());
  std::vector<lab::Result> rows = lab::in_turns_with(copy, [&] {
    return driver.run(
        "GB/s", s.n,
        RunRow{env, s, a_buf, b_buf, c_buf, reference, driver.rows().front(), details});
  });

  // 8. Report against the copy: vector_add moves 12 bytes per element (read a and b, write c),
  //    the copy 8
  lab::Report report("vector_add", lab::describe_device(env));
  for (lab::Result& row : rows) {
    lab::relate_to_copy(row, copy);
    report.add(row);
  }
  report.details() = details;
  report.details()["n"] = s.n;
  report.details()["mode"] = s.mode;
  report.details()["tolerance"] = lab::Tolerance::exact().describe();
  report.details()["copy"] = copy.details;
  report.print(cli.format(), std::cout);
  return report.exit_code();
}

}  // namespace

int main(int argc, char** argv) {
  return lab::run_main(
      argc, argv, "vector_add", "c = a + b on an OpenCL device", [](lab::Cli& cli) {
        // 1. Options: the table's variants and tunables (--local, --per-item, --tunable)
        const vector_add::Family& family = vector_add::family();
        Settings s;
        cli.add_size("-n,--size", s.n, "Number of elements (any n >= 1; 2^20 works too)");
        lab::add_variant_option(cli, family, s.variant,
                                " (default: element, or per_item with --per-item)");
        lab::TuningOptions tuning_options(cli, family.tunables);
        cli.add_choice("--mode", s.mode, "How buffers are made: copy|use|alloc|write",
                       lab::buffer_mode_names());
        cli.add_flag("--no-fetch", s.no_fetch,
                     "Result buffer uses USE_HOST_PTR and is made visible by a map, not a read");
        cli.add_flag("--skip-finish", s.skip_finish,
                     "Look at the result before waiting for the kernel (the missing clFinish)");
        cli.parse();
        tuning_options.check();
        const auto& opt = cli.options();
        const lab::Tuning defaults = vector_add::default_tuning();
        const lab::Tuning tuning = tuning_options.apply(defaults);
        const bool per_item_given = tuning.given("PER_ITEM") && tuning["PER_ITEM"] > 1;
        if (s.variant.empty()) s.variant = per_item_given ? "per_item" : "element";
        if (s.variant == "element" && per_item_given) {
          throw lab::UsageError("--per-item " + std::to_string(tuning["PER_ITEM"]) +
                                " needs --variant per_item: element adds one element per "
                                "work-item");
        }
        lab::require_kernel_files(opt, family.kernel_files(s.variant), "--variant");
        lab::check_tunables_used(tuning_options, family, s.variant, lab::notes());

        // 2. Device
        lab::Env env = lab::open_device(opt, cli.out());
        // a, b, c and the copy's source and destination; on the host a, b, c and the reference
        lab::check_memory(env, s.n * sizeof(float), 5, 6, "-n");

        return run(cli, env, s, tuning_options, defaults);
      });
}
