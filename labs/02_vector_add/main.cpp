// vector_add: c = a + b on an OpenCL device, checked element by element against the host and
// timed against copy kernels, the device's practical memory bandwidth. The OpenCL host program,
// steps 1-13 from top to bottom; lab:: helpers parse options, choose the device, check and report.
#ifndef CL_HPP_ENABLE_EXCEPTIONS  // the same settings as common/CMakeLists.txt gives every lab
#define CL_HPP_ENABLE_EXCEPTIONS  // OpenCL errors as cl::Error exceptions
#define CL_HPP_TARGET_OPENCL_VERSION 120
#define CL_HPP_MINIMUM_OPENCL_VERSION 120
#define CL_TARGET_OPENCL_VERSION 120
#define CL_HPP_CL_1_2_DEFAULT_BUILD
#endif
#include <CL/opencl.hpp>

#include "lab/lab.hpp"
#include "vector_add_family.hpp"

#include <cstring>

namespace {

// Steps 4-13 for elements of type T: float, or double with --dtype double.
template <typename T>
int run(lab::Cli& cli, lab::Env& env, const vector_add::Settings& s,
        const lab::TuningOptions& tuning_options);

}  // namespace

int main(int argc, char** argv) {
  return lab::run_main(
      argc, argv, "vector_add", "c = a + b on an OpenCL device", [](lab::Cli& cli) {
        // 1. Options (vector_add_family.cpp): -n, --dtype, --variant, the tunables (--local,
        //    --per-item, --vector-width), --mode, --no-fetch, --skip-finish
        vector_add::Settings s;
        vector_add::add_size_and_variant(cli, s);
        lab::TuningOptions tuning_options(cli, vector_add::family().tunables);
        vector_add::parse_options(cli, s, tuning_options);

        // 2. Choose the device (-p, -d, --type): lab::pick_device lists the platforms
        //    (cl::Platform::get) and each one's devices (platform.getDevices(CL_DEVICE_TYPE_ALL,
        //    &devices)) and takes the one the options name, else the first GPU, else the first.
        //    a, b, c and the copy's two buffers must fit on it, and a, b, c and the reference on
        //    the host
        lab::Env env = lab::pick_device(cli.options(), cli.out());
        const bool fp64 = s.dtype == "double";
        if (fp64) lab::require_fp64(env, "vector_add");  // exit 77, with a sentence, without it
        lab::check_memory(env, s.n * (fp64 ? sizeof(double) : sizeof(float)), 5, 6, "-n");

        // 3. A context on the device, and an in-order queue that records profiling information
        env.context = cl::Context(env.device);
        env.queue = cl::CommandQueue(env.context, env.device, CL_QUEUE_PROFILING_ENABLE);
        lab::trace_queue(env.queue);
        return fp64 ? run<double>(cli, env, s, tuning_options)
                    : run<float>(cli, env, s, tuning_options);
      });
}

namespace {

template <typename T>
int run(lab::Cli& cli, lab::Env& env, const vector_add::Settings& s,
        const lab::TuningOptions& tuning_options) {
  // 4. Host data and the reference. Each host array sits between two guard zones, the one after
  //    it as long as the furthest launch of the chosen variants (with --tune, of every candidate)
  //    overshoots n: a kernel that forgets its bounds check, or computes an index below 0, writes
  //    there, and step 12 says so.
  const auto& opt = cli.options();
  const lab::Tuning defaults = vector_add::default_tuning();
  const std::string real = lab::opencl_type_name<T>();  // "float" or "double", the kernel's REAL
  lab::VariantDriver driver(cli, env, vector_add::family(), s.variant, tuning_options, defaults,
                            real, double(s.n));
  const std::uint64_t reach = vector_add::guard_reach(env, driver, s.n, sizeof(T));
  const auto a0 = lab::random_vector<T>(s.n, lab::derive_seed(opt.seed, 0), T(0), T(1));
  const auto b0 = lab::random_vector<T>(s.n, lab::derive_seed(opt.seed, 1), T(0), T(1));
  lab::HostVector<T> reference(s.n);
  for (std::uint64_t i = 0; i < s.n; ++i) reference[i] = a0[i] + b0[i];
  lab::GuardedArray<T> a_host(env.device, s.n, reach, a0.data());
  lab::GuardedArray<T> b_host(env.device, s.n, reach, b0.data());
  lab::GuardedArray<T> c_host(env.device, s.n, reach);  // NaN: an element never written shows
  const cl::Context& context = env.context;
  const cl::CommandQueue& queue = env.queue;

  // The yardstick, which every run below takes turns with: the faster of a float and a float4
  // copy kernel over plain buffers of the same bytes (vector_add_family.cpp)
  const lab::CopyBaseline copy = vector_add::measure_yardstick(
      env, opt, tuning_options.apply(defaults), s.n, sizeof(T), cli.out());
  const lab::InTurnsWith turns(copy.launch, copy.settle);
  nlohmann::json details = nlohmann::json::object();

  // Steps 5-12 for each chosen variant, with its tuning (with --tune, first for each candidate)
  const auto run_variant = [&](const vector_add::Variant& v, const lab::Tuning& t,
                               const lab::Stage& stage) {
    // 5. Read the kernel file and build it, the element type (-D REAL, and -D FP64=1 for double)
    //    and the variant's tunables as -D defines (a work-group the device cannot run is refused
    //    first); print the build log when it fails
    const lab::KernelPlan plan =
        lab::plan_kernel(vector_add::family(), v, s.n, t, lab::real_defines(real),
                         vector_add::signature(real), sizeof(T));
    lab::check_before_build(env, plan);
    const lab::KernelText file =
        lab::load_kernel(env, stage.options, plan.kernel_file, plan.defines, stage.out);
    cl::Program program(context, file.source);
    try {
      program.build({env.device}, file.flags.c_str());
    } catch (const cl::Error& error) {
      lab::build_failed(file, error, program.getBuildInfo<CL_PROGRAM_BUILD_LOG>(env.device));
    }

    // 6. The kernel, checked against the arguments step 8 sets and the launch step 9 makes
    lab::check_kernel_name(program, file, plan.signature);
    cl::Kernel kernel(program, v.kernel_name.c_str());
    lab::check_kernel_args(kernel, file, plan.signature);
    const auto& range = plan.range;  // global: n / elements per work-item, padded to `local`
    const cl::NDRange global(range.global[0]);
    const cl::NDRange local = range.local.empty() ? cl::NullRange : cl::NDRange(range.local[0]);
    lab::check_ndrange(kernel, env.device, range.global, range.local, plan.limits);
    stage.out << v.name << ": n = " << s.n << " " << real << "s, work-items = " << range.global[0]
              << (range.local.empty() ? ", local chosen by the runtime"
                                      : ", local = " + std::to_string(range.local[0]))
              << ", buffers: " << s.mode << (s.host_result() ? " (result: USE_HOST_PTR)" : "")
              << "\n";

    // 7. Buffers over the host arrays (their guard zones included), made the way --mode says
    const auto make_buffer = [&](cl_mem_flags access, lab::GuardedArray<T>& host,
                                 const std::string& mode) {
      if (mode == "copy") {  // the runtime copies the host array now
        return cl::Buffer(context, access | CL_MEM_COPY_HOST_PTR, host.bytes(), host.all());
      }
      if (mode == "use") {  // the buffer is the host array
        return cl::Buffer(context, access | CL_MEM_USE_HOST_PTR, host.bytes(), host.all());
      }
      if (mode == "alloc") {  // memory the runtime allocates, filled through a map
        cl::Buffer buffer(context, access | CL_MEM_ALLOC_HOST_PTR, host.bytes());
        void* mapped = queue.enqueueMapBuffer(buffer, CL_TRUE, CL_MAP_WRITE, 0, host.bytes());
        std::memcpy(mapped, host.all(), host.bytes());
        queue.enqueueUnmapMemObject(buffer, mapped);
        return buffer;
      }
      cl::Buffer buffer(context, access, host.bytes());  // write: a plain buffer, then a write
      queue.enqueueWriteBuffer(buffer, CL_TRUE, 0, host.bytes(), host.all());
      return buffer;
    };
    cl::Buffer a_all = make_buffer(CL_MEM_READ_ONLY, a_host, s.mode);
    cl::Buffer b_all = make_buffer(CL_MEM_READ_ONLY, b_host, s.mode);
    const std::string c_mode = s.host_result() ? "use" : s.mode;
    cl::Buffer c_all = make_buffer(CL_MEM_WRITE_ONLY, c_host, c_mode);
    c_host.reset(queue, c_all);  // NaN in c and the guard pattern around it, for every variant
    //    The kernel gets sub-buffers over the data alone, so that an index out of range lands in
    //    a guard zone (checked in step 12), never in memory the runtime uses for something else
    const cl_buffer_region a_data = a_host.region(), b_data = b_host.region(),
                           c_data = c_host.region();
    const cl::Buffer a = a_all.createSubBuffer(0, CL_BUFFER_CREATE_TYPE_REGION, &a_data);
    const cl::Buffer b = b_all.createSubBuffer(0, CL_BUFFER_CREATE_TYPE_REGION, &b_data);
    const cl::Buffer c = c_all.createSubBuffer(0, CL_BUFFER_CREATE_TYPE_REGION, &c_data);

    // 8. The arguments of __kernel void vector_add(ulong n, global REAL* a, b, c)
    kernel.setArg(0, cl_ulong{s.n});
    kernel.setArg(1, a);
    kernel.setArg(2, b);
    kernel.setArg(3, c);

    // 9. Launch: `global` work-items in work-groups of `local` (NullRange: the runtime chooses)
    const auto launch = [&] {
      cl::Event event;
      queue.enqueueNDRangeKernel(kernel, cl::NullRange, global, local, nullptr, &event);
      return event;
    };

    // 10. Wait for each launch and time it from its event, CL_PROFILING_COMMAND_START to _END:
    //     lab::time_launches makes --warmup untimed and --reps timed runs of this, each followed
    //     by a run of the copy, and summarizes the times (-v prints each one's stages)
    cl::Event last;
    const auto run_and_wait = [&] {
      last = launch();
      last.wait();
      return last;
    };
    const lab::Timing timing = lab::time_launches(stage.options, run_and_wait, stage.out);
    const cl_ulong start = last.getProfilingInfo<CL_PROFILING_COMMAND_START>();
    const cl_ulong end = last.getProfilingInfo<CL_PROFILING_COMMAND_END>();
    stage.out << v.name << ": the last launch ran " << double(end - start) * 1e-3 << " us\n";
    if (s.skip_finish && !stage.trial && &v == driver.rows().front()) {
      details["skip_finish"] = vector_add::look_without_waiting(
          queue, c_host, c_all, reference.data(), s.n, launch, stage.out);
    }

    // 11. Read c back: a read for copy and write, a map for use and alloc (the buffer's memory
    //     is the host's; the map makes the device's writes visible there)
    const bool map = c_mode == "use" || c_mode == "alloc";
    T* result = c_host.data();
    if (map) {
      result = static_cast<T*>(queue.enqueueMapBuffer(c, CL_TRUE, CL_MAP_READ, 0, s.n * sizeof(T)));
    } else {
      queue.enqueueReadBuffer(c, CL_TRUE, 0, s.n * sizeof(T), result);
    }

    // 12. Check every element, exactly (float and double addition are correctly rounded in
    //     OpenCL C), and that nothing was written in the guard zones around c
    const lab::CheckResult check =
        lab::compare(result, reference.data(), s.n, lab::Tolerance::exact(), stage.err, "c");
    if (map) queue.enqueueUnmapMemObject(c, result);
    queue.finish();
    const lab::GuardCheck guard = c_host.check(queue, c_all);
    lab::Result row = vector_add::make_row(v, t, s, timing, check, guard, stage.err);
    if (!stage.trial) {
      details["variants"][v.name] = {{"global", range.global},
                                     {"local", range.local.empty() ? 0 : range.local[0]},
                                     {"mean_wait_before_start_s", timing.mean_queued_to_start}};
    }
    return row;
  };
  std::vector<lab::Result> rows;
  for (std::size_t i = 0; i < driver.rows().size(); ++i) {
    const vector_add::Variant& v = *driver.rows()[i];
    const auto progress = driver.progress(i);  // on stderr, while a long run lasts
    const auto chosen = driver.choose(i, "GB/s", s.n, [&](auto t, auto trial) {
      return run_variant(v, t, trial);  // --tune tries each candidate this way, quietly
    });
    if (!chosen) continue;  // its limits refuse this size (a line said so)
    rows.push_back(run_variant(v, chosen->tuning, driver.stage()));
    rows.back().tuning = chosen->source;
  }
  driver.check_any_ran(rows);

  // 13. The report: each variant's rate against the copy's
  return vector_add::report(cli, env, std::move(rows), copy, details, s.n, s.mode, s.dtype);
}

}  // namespace
