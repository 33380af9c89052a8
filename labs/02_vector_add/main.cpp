// vector_add: c = a + b on an OpenCL device, checked element by element against the host and
// timed against copy kernels, the device's practical memory bandwidth.
#include "lab/lab.hpp"

#include <cmath>
#include <iostream>
#include <limits>

namespace {

struct Settings {
  std::uint64_t n = std::uint64_t{1} << 24;  // elements
  std::uint64_t local = 0;                   // work-group size, 0: the runtime chooses
  std::uint64_t per_item = 1;                // elements per work-item
  std::string mode = "copy";
  bool no_fetch = false;
  bool skip_finish = false;
};

const char* status_name(cl_int status) {
  switch (status) {
    case CL_QUEUED:
      return "queued";
    case CL_SUBMITTED:
      return "submitted";
    case CL_RUNNING:
      return "running";
    case CL_COMPLETE:
      return "complete";
    default:
      return "failed";
  }
}

}  // namespace

int main(int argc, char** argv) {
  return lab::run_main(
      argc, argv, "vector_add", "c = a + b on an OpenCL device", [](lab::Cli& cli) {
        // 1. Options
        Settings s;
        cli.add_size("-n,--size", s.n, "Number of elements (any n >= 1; 2^20 works too)");
        cli.add_size("--local", s.local, "Work-group size (default: the runtime chooses)");
        cli.add_size("--per-item", s.per_item, "Elements each work-item adds (fewer work-items)");
        cli.add_choice("--mode", s.mode, "How buffers are made: copy|use|alloc|write",
                       lab::buffer_mode_names());
        cli.add_flag("--no-fetch", s.no_fetch,
                     "Result buffer uses USE_HOST_PTR and is made visible by a map, not a read");
        cli.add_flag("--skip-finish", s.skip_finish,
                     "Look at the result before waiting for the kernel (the missing clFinish)");
        cli.parse();
        const auto& opt = cli.options();
        const lab::BufferMode mode = lab::parse_buffer_mode(s.mode);
        const bool use_host_result = s.no_fetch || s.skip_finish;  // the host array is the buffer

        // 2. Device
        lab::Env env = lab::open_device(opt, cli.out());
        const std::uint64_t bytes = s.n * sizeof(float);
        lab::check_memory(env, bytes, 5, 6,
                          "-n");  // a, b, c + copy src/dst; host a, b, c, ref, ...

        // 3. Host data and reference
        auto a = lab::random_vector<float>(s.n, lab::derive_seed(opt.seed, 0), 0.0f, 1.0f);
        auto b = lab::random_vector<float>(s.n, lab::derive_seed(opt.seed, 1), 0.0f, 1.0f);
        lab::HostVector<float> reference(s.n);
        for (std::uint64_t i = 0; i < s.n; ++i) reference[i] = a[i] + b[i];

        // 4. Buffers, each with guard zones as long as the padded launch overshoots n: a kernel
        //    that forgets its bounds check writes there, and the check below says so.
        const std::uint64_t items = (s.n + s.per_item - 1) / s.per_item;
        const std::uint64_t launched = s.local ? lab::round_up(items, s.local) : items;
        const std::uint64_t reach = launched * s.per_item - s.n;
        lab::GuardedBuffer<float> a_buf(env, mode, CL_MEM_READ_ONLY, s.n, reach, a.data());
        lab::GuardedBuffer<float> b_buf(env, mode, CL_MEM_READ_ONLY, s.n, reach, b.data());
        lab::GuardedBuffer<float> c_buf(env, use_host_result ? lab::BufferMode::use : mode,
                                        CL_MEM_WRITE_ONLY, s.n, reach);

        // 5. Program and kernel, checked against the arguments the host passes
        const lab::Program program = lab::build_program(env, opt, "vector_add.cl", {}, cli.out());
        const std::string name = s.per_item == 1 ? "vector_add" : "vector_add_per_item";
        cl::KernelFunctor<cl_ulong, cl::Buffer, cl::Buffer, cl::Buffer> add(
            lab::make_kernel(program, {name,
                                       {{"", "ulong", "n"},
                                        {"global", "float*", "a"},
                                        {"global", "float*", "b"},
                                        {"global", "float*", "c"}}}));
        const lab::Launch1D shape = lab::plan_1d(add.getKernel(), env.device, items, s.local);
        cli.out() << "n = " << s.n << ", work-items = " << shape.global
                  << (s.local ? ", local = " + std::to_string(s.local)
                              : ", local chosen by the runtime")
                  << ", buffers: " << s.mode << (use_host_result ? " (result: USE_HOST_PTR)" : "")
                  << "\n";

        // 6. Run: warm-up, then timed repetitions from profiling events, on a result that
        //    starts as NaN everywhere
        c_buf.reset(env.queue);
        const auto launch = [&] {
          return add(shape.args(env.queue), s.n, a_buf.buffer(), b_buf.buffer(), c_buf.buffer());
        };
        const lab::Timing timing = lab::time_launches(opt, launch, cli.out());

        lab::Report report("vector_add", env.device_name());
        if (s.skip_finish) {
          // Reset the result to NaN, launch, and look at the host array before waiting. Reading
          // memory the device may be writing is exactly the bug the lecture demonstrates.
          c_buf.reset(env.queue);
          const cl::Event event = launch();
          const cl_int before = event.getInfo<CL_EVENT_COMMAND_EXECUTION_STATUS>();
          std::uint64_t seen = 0;
          const float* c = c_buf.host();
          for (std::uint64_t i = 0; i < s.n; ++i) seen += c[i] == reference[i] ? 1 : 0;
          const cl_int after = event.getInfo<CL_EVENT_COMMAND_EXECUTION_STATUS>();
          cli.out() << "Without waiting: " << seen << " of " << s.n
                    << " elements of the host array c held a+b (the kernel was "
                    << status_name(before) << " when the host started looking, "
                    << status_name(after)
                    << " when it finished).\nAfter waiting (a map): the check below.\n";
          report.details()["skip_finish"] = {{"correct_before_wait", seen},
                                             {"status_when_looking", status_name(before)},
                                             {"status_after_looking", status_name(after)}};
        }

        // 7. Verify: every element, exactly (float addition is correctly rounded in OpenCL C),
        //    and nothing written outside c
        lab::CheckResult check;
        {
          const lab::Mapping<float> result = c_buf.fetch(env.queue);
          check = lab::compare(result.data(), reference.data(), s.n, lab::Tolerance::exact(),
                               std::cerr, "c");
        }
        const lab::GuardCheck guard = c_buf.check_guards(env.queue);
        const std::string outside = lab::describe_guard_writes(
            guard, "c", "padding work-items need the bounds check `if (i < n)`");
        if (!outside.empty()) std::cerr << "vector_add: " << outside << "\n";

        // The yardstick: the faster of a float and a float4 copy kernel over plain device buffers.
        const lab::CopyBaseline copy = lab::measure_copy(env, opt, s.n, s.local, cli.out());

        // 8. Report: vector_add moves 12 bytes per element (read a and b, write c), the copy 8
        const double add_rate = lab::gigabytes_per_second(12.0 * s.n, timing.kernel.median);
        lab::Result row;
        row.variant = "mode=" + s.mode +
                      (s.per_item > 1 ? " per-item=" + std::to_string(s.per_item) : "") +
                      (use_host_result ? " result=use" : "");
        row.size = "n=" + std::to_string(s.n);
        row.time = timing.kernel;
        row.rate = add_rate;
        row.unit = "GB/s";
        if (copy.measurable) {
          row.percent = 100.0 * add_rate / copy.rate;
          row.reference =
              "copy kernel " + std::to_string(static_cast<long>(std::lround(copy.rate))) + " GB/s";
        } else {
          row.note = copy.why_not_measurable;
        }
        row.out_of_bounds = guard.total();
        lab::set_check(row, check);
        row.passed = row.passed && copy.passed;
        report.add(row);
        report.details()["n"] = s.n;
        report.details()["global"] = shape.global;
        report.details()["local"] = s.local;
        report.details()["mode"] = s.mode;
        report.details()["tolerance"] = lab::Tolerance::exact().describe();
        report.details()["copy"] = copy.details;
        report.details()["mean_wait_before_start_s"] = timing.mean_queued_to_start;
        report.print(cli.format(), std::cout);
        return report.exit_code();
      });
}
