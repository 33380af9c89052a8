// events: synchronisation between OpenCL commands with events (wait lists, in-order and
// out-of-order queues, markers and barriers, callbacks, user events, two queues, sub-devices),
// every ordering checked from the commands' profiling timestamps.
#include "bench.hpp"
#include "events.hpp"

#include "lab/lab.hpp"

#include <iostream>

namespace {

// The parts, in the order the course notes meet them, each in a file of its name. Every part
// builds the busy kernel (the one --kernel-file replaces) and the combining one.
struct Demo {
  const char* name;
  void (*run)(events::Setup& setup, events::PartResult& result);
};
const Demo kDemos[] = {
    {"wait_list", events::wait_list},            // a kernel waits on two others' events
    {"out_of_order", events::out_of_order},      // in-order and out-of-order queues
    {"marker_barrier", events::marker_barrier},  // a barrier and a marker
    {"callbacks", events::callbacks},            // callbacks on a kernel's event
    {"user_event", events::user_event},          // a user event holds a kernel back
    {"two_queues", events::two_queues},          // an event orders commands of two queues
    {"sub_devices", events::sub_devices},        // the same across two sub-devices
};

std::vector<lab::Part> part_table() {
  std::vector<lab::Part> table;
  for (const Demo& demo : kDemos) {
    table.push_back({demo.name, "events_busy.cl", {"events_combine.cl"}});
  }
  return table;
}

// Runs one part: its row, passed or failed by its checks, or skipped with the reason the device
// gave.
events::PartResult run_part(const Demo& demo, events::Setup& setup) {
  events::PartResult result;
  try {
    demo.run(setup, result);
  } catch (const events::Skipped& skipped) {
    result.status = events::Status::skipped;
    result.reason = skipped.reason;
  }
  result.part = demo.name;
  if (result.status != events::Status::skipped) {
    result.status = result.failures.empty() ? events::Status::passed : events::Status::failed;
  }
  return result;
}

// --wait-on "k1,k2", "k1", "k2" or "none": the events kernel 3 of wait_list waits for.
void parse_wait_on(const std::string& text, events::Setup& setup) {
  setup.wait_k1 = setup.wait_k2 = false;
  if (text == "none") return;
  std::size_t at = 0;
  while (at <= text.size()) {
    const std::size_t comma = std::min(text.find(',', at), text.size());
    const std::string name = text.substr(at, comma - at);
    bool& flag = name == "k1" ? setup.wait_k1 : setup.wait_k2;
    if ((name != "k1" && name != "k2") || flag) {
      throw lab::UsageError("--wait-on: '" + text +
                            "' is not a list of k1 and k2: write k1,k2 (the default), k1, k2 or "
                            "none for the events kernel 3 waits on");
    }
    flag = true;
    at = comma + 1;
  }
}

// The busy and combine kernels on `on`, checked against the arguments the host passes, and
// launched `opt.warmup` times each (warm-ups).
events::Kernels build_kernels(const lab::Env& on, const lab::Options& opt, std::uint64_t n,
                              std::ostream& out) {
  const lab::Program busy = lab::build_program(on, opt, "events_busy.cl", {}, out);
  const lab::Program combine = lab::build_program(on, opt, "events_combine.cl", {}, out, false);
  events::Kernels kernels{lab::make_kernel(busy, {"events_busy",
                                                  {{"", "ulong", "n"},
                                                   {"", "uint", "work"},
                                                   {"", "uint", "salt"},
                                                   {"global", "uint*", "in"},
                                                   {"global", "uint*", "out"}}}),
                          lab::make_kernel(combine, {"events_combine",
                                                     {{"", "ulong", "n"},
                                                      {"global", "uint*", "a"},
                                                      {"global", "uint*", "b"},
                                                      {"global", "uint*", "c"}}})};
  // Warm-up: PoCL compiles a kernel for its device on the first launch, which would
  // otherwise sit inside the first round's timestamps.
  cl::Buffer scratch(on.context, CL_MEM_READ_WRITE, n * sizeof(cl_uint));
  for (int w = 0; w < opt.warmup; ++w) {
    kernels.busy.setArg(0, static_cast<cl_ulong>(n));
    kernels.busy.setArg(1, static_cast<cl_uint>(1));
    kernels.busy.setArg(2, static_cast<cl_uint>(0));
    kernels.busy.setArg(3, scratch);
    kernels.busy.setArg(4, scratch);
    kernels.combine.setArg(0, static_cast<cl_ulong>(n));
    for (cl_uint arg = 1; arg < 4; ++arg) kernels.combine.setArg(arg, scratch);
    for (const cl::Kernel* kernel : {&kernels.busy, &kernels.combine}) {
      cl::Event event;
      on.queue.enqueueNDRangeKernel(*kernel, cl::NullRange, cl::NDRange(n), cl::NullRange, nullptr,
                                    &event);
      event.wait();
      lab::trace_command(event, "", {{"warm-up", true}});
    }
  }
  return kernels;
}

}  // namespace

int main(int argc, char** argv) {
  return lab::run_main(
      argc, argv, "events", "Events: ordering OpenCL commands, checked from their timestamps",
      [](lab::Cli& cli) {
        // 1. Options
        events::Setup setup;
        std::uint64_t n = 1 << 16, work = 200, hold = 0;
        std::string wait_on = "k1,k2";
        lab::Parts parts(cli, part_table(), "Which demo");
        cli.add_text("--wait-on", wait_on,
                     "Events kernel 3 of wait_list waits on: k1,k2 (default), k1, k2 or none");
        cli.add_size("-n,--size", n, "Elements per kernel (default 2^16)");
        cli.add_count("--work", work,
                      "Steps per element of the busy kernel: its run time "
                      "(default 200)",
                      1, 1000000);
        cli.add_count("--hold", hold,
                      "Milliseconds the host keeps a user event unset (default: 4 times the busy "
                      "kernel's measured time, at least 30)",
                      1, 10000);
        cli.parse();
        parts.read_by("--wait-on", {"wait_list"})
            .read_by("--hold",
                     {"wait_list", "marker_barrier", "user_event", "two_queues", "sub_devices"})
            .check(cli);
        parse_wait_on(wait_on, setup);
        const auto& opt = cli.options();
        setup.options = &opt;
        setup.n = n;
        setup.work = static_cast<cl_uint>(work);
        setup.out = &cli.out();
        setup.err = &std::cerr;

        // 2. Device: its context and in-order queue; the parts make the other queues
        lab::Env env = lab::open_device(opt, cli.out());
        setup.env = &env;
        lab::check_memory(env, n * sizeof(cl_uint), 8, 8, "-n");

        // 3. Host data: one random input; each part computes its references with
        //    events::busy_reference and combine_reference (bench.hpp), the kernels' arithmetic on
        //    the host
        setup.input = lab::random_vector<cl_uint>(n, lab::derive_seed(opt.seed, 0), 0u, ~0u);

        // 4. Buffers: each part makes its own, outputs filled with 0xdeadbeef until written

        // 5. Program + kernels, checked against the arguments the host passes; the sub-devices
        //    part builds them again for its own context
        setup.build = [&](const lab::Env& on) { return build_kernels(on, opt, n, cli.out()); };
        if (lab::Trace* trace = lab::active_trace()) trace->name_queue(env.queue, "in-order queue");
        setup.kernels = setup.build(env);

        // The hold: long enough that a kernel enqueued beside a held one ends well before the
        // user event opens, whatever the device, so a wait list that lacks the held kernel's
        // event shows as wrong elements every time (a fixed 30 ms was a coin toss on a slow CPU)
        setup.busy_s = events::time_busy_kernel(setup);
        setup.hold_ms = hold > 0 ? static_cast<int>(hold) : events::default_hold_ms(setup.busy_s);
        setup.hold_given = hold > 0;

        // 6-7. Run and verify: each part checks its orderings in every round and every element
        //      of every result, and prints why when one is broken
        std::vector<events::PartResult> rows;
        for (const Demo& demo : kDemos) {
          const std::string name = demo.name;
          if (!parts.runs(name)) continue;
          events::PartResult row = run_part(demo, setup);
          if (row.status == events::Status::skipped && parts.chosen() != "all") {
            throw lab::SkipError(name + " cannot run on " + env.device_name() + ": " + row.reason);
          }
          for (const auto& failure : row.failures) {
            std::cerr << "events: " << name << ": " << failure << "\n";
          }
          rows.push_back(std::move(row));
        }

        // 8. Report: one row per part; exit 1 when any check failed
        events::print_report(rows, setup, cli.format(), std::cout);
        const bool failed = std::any_of(rows.begin(), rows.end(), [](const auto& r) {
          return r.status == events::Status::failed;
        });
        return failed ? lab::kExitFailed : lab::kExitPassed;
      });
}
