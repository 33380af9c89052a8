// split.cpp: the multi_device lab's job, steps 6-11. C = A·B (floats) split by rows of C: a
// device that computes rows [r0, r1) needs those rows of A and all of B, and gives back those
// rows of C, so the devices never wait for each other. Each one uploads its rows of A and all of
// B from its context's pinned staging memory, runs matmul_regtile_simple on them and downloads
// its rows of C into the staging memory; the host enqueues every device's commands, flushes each
// queue and only then waits for them all. The job is timed on the host's clock, from the first
// upload enqueued to the last download done (each device's own clock starts elsewhere), and every
// device's commands on its own clock; every run's C is checked whole against the reference.
#ifndef CL_HPP_ENABLE_EXCEPTIONS  // the same settings as common/CMakeLists.txt gives every lab
#define CL_HPP_ENABLE_EXCEPTIONS  // OpenCL errors as cl::Error exceptions
#define CL_HPP_TARGET_OPENCL_VERSION 120
#define CL_HPP_MINIMUM_OPENCL_VERSION 120
#define CL_TARGET_OPENCL_VERSION 120
#define CL_HPP_CL_1_2_DEFAULT_BUILD
#endif
#include <CL/opencl.hpp>

#include "parts.hpp"

#include <algorithm>
#include <chrono>
#include <cstring>
#include <iomanip>
#include <iostream>
#include <numeric>
#include <sstream>

namespace multi_device {
namespace {

// What one member holds for the job: its queue and kernel, the kernel's block of C per
// work-group, and buffers on the device for A, B and C as large as the whole job (a share uses
// their first rows), so that every plan runs on the same buffers.
struct Station {
  cl::CommandQueue queue;
  cl::Kernel kernel;
  std::uint64_t block = 64;
  cl::Buffer a, b, c;
};

// The pinned memory of one context: A, B and C in CL_MEM_ALLOC_HOST_PTR buffers, mapped once.
// Their pointers are the host side of every upload and download of the context's devices.
struct Staging {
  cl::CommandQueue queue;  // maps and unmaps them
  cl::Buffer a, b, c;
  float* A = nullptr;
  float* B = nullptr;
  float* C = nullptr;
};

// A way of running the job: the rows of C each member computes, in member order (the first
// member the first rows; 0: it takes no part).
struct Plan {
  std::string name;
  std::vector<std::uint64_t> rows;
  bool alone = false;  // one member with the whole job
};

// One member's times in one run, from its events: both uploads, the kernel, the download, and
// the span from the first upload's start to the download's end.
struct MemberTimes {
  double upload_s = 0, kernel_s = 0, download_s = 0, span_s = 0;
};

// Every timed run of a plan: the job's time on the host clock, each member's times, and the
// check of C over all the runs (the first wrong run's mismatches stand).
struct PlanRuns {
  std::vector<double> host_s;
  std::vector<std::vector<MemberTimes>> members;  // [run][member]
  lab::CheckResult check;
  std::string wrong_bands;  // which members' rows held the first wrong run's mismatches
};

// Which members' bands of C hold wrong elements (beyond their row's bound, or not a number), as
// a sentence: "wrong elements in sub-device 1 (1 CU)'s rows 64-129 (8580 of 8580)". A wrong band
// points at that member's offsets, sizes or launch; every band wrong, at what they share.
std::string wrong_bands(const float* C, const lab::MatmulProblem<float>& problem,
                        const std::vector<Member>& members,
                        const std::vector<std::uint64_t>& rows) {
  const std::uint64_t N = problem.dims.N;
  std::ostringstream said, unprinted;  // the mismatch lines were printed by the whole check
  std::uint64_t row0 = 0;
  for (std::size_t i = 0; i < members.size(); ++i) {
    const std::size_t wrong =
        lab::compare_each(
            C + row0 * N, problem.C_ref.data() + row0 * N, rows[i] * N,
            [&](std::size_t k) { return problem.row_tolerance[row0 + k / N]; }, unprinted, "")
            .mismatches;
    if (wrong > 0) {
      said << (said.tellp() > 0 ? "; " : "") << members[i].name << "'s rows " << row0 << "-"
           << row0 + rows[i] - 1 << " (" << wrong << " of " << rows[i] * N << " elements)";
    }
    row0 += rows[i];
  }
  return said.str();
}

// Rows [0, m) in pieces proportional to `weights`, each boundary rounded to the nearest multiple
// of `granule` (the kernel's block of rows: a piece of a few rows costs its device a whole block
// of them) and the last piece taking the rest: the pieces add up to m, and a weight of 0, or one
// too small for half a block, gets none.
std::vector<std::uint64_t> rows_by_weight(std::uint64_t m, const std::vector<double>& weights,
                                          std::uint64_t granule) {
  const double total = std::accumulate(weights.begin(), weights.end(), 0.0);
  std::vector<std::uint64_t> rows;
  double sum = 0;
  std::uint64_t edge = 0;
  for (double w : weights) {
    sum += w;
    const double at = double(m) * sum / total / double(granule);
    const auto next = std::max(edge, std::min<std::uint64_t>(m, std::uint64_t(at + 0.5) * granule));
    rows.push_back(next - edge);
    edge = next;
  }
  for (std::size_t i = rows.size(); i-- > 0;) {  // the rest to the last piece that has weight
    if (weights[i] > 0) {
      rows[i] += m - edge;
      break;
    }
  }
  return rows;
}

double seconds_between(const cl::Event& first, const cl::Event& last) {
  return double(last.getProfilingInfo<CL_PROFILING_COMMAND_END>() -
                first.getProfilingInfo<CL_PROFILING_COMMAND_START>()) *
         1e-9;
}

// The median of one member's times over the runs.
MemberTimes median_times(const PlanRuns& runs, std::size_t member) {
  std::vector<double> up, kernel, down, span;
  for (const auto& run : runs.members) {
    up.push_back(run[member].upload_s);
    kernel.push_back(run[member].kernel_s);
    down.push_back(run[member].download_s);
    span.push_back(run[member].span_s);
  }
  return {lab::summarize(up).median, lab::summarize(kernel).median, lab::summarize(down).median,
          lab::summarize(span).median};
}

}  // namespace

std::vector<lab::Result> split(lab::Cli& cli, Team& team, const lab::MatmulProblem<float>& problem,
                               nlohmann::json& details) {
  const lab::Options& opt = cli.options();
  std::ostream& out = cli.out();
  const lab::MatmulDims& d = problem.dims;
  const std::uint64_t M = d.M, N = d.N, K = d.K;
  const std::size_t f = sizeof(float);
  const std::size_t count = team.members.size();

  // 6. Pinned staging memory in each context, filled once with A and B: a program that makes
  //    its data where the devices read it from, as a real one would, copies nothing per run
  std::vector<Staging> staging(team.contexts.size());
  for (std::size_t c = 0; c < staging.size(); ++c) {
    const Member& first = *std::find_if(team.members.begin(), team.members.end(),
                                        [&](const Member& m) { return m.context == c; });
    Staging& sg = staging[c];
    sg.queue = cl::CommandQueue(team.contexts[c], first.device);
    sg.a = cl::Buffer(team.contexts[c], CL_MEM_READ_WRITE | CL_MEM_ALLOC_HOST_PTR, M * K * f);
    sg.b = cl::Buffer(team.contexts[c], CL_MEM_READ_WRITE | CL_MEM_ALLOC_HOST_PTR, K * N * f);
    sg.c = cl::Buffer(team.contexts[c], CL_MEM_READ_WRITE | CL_MEM_ALLOC_HOST_PTR, M * N * f);
    sg.A =
        static_cast<float*>(sg.queue.enqueueMapBuffer(sg.a, CL_TRUE, CL_MAP_WRITE, 0, M * K * f));
    sg.B =
        static_cast<float*>(sg.queue.enqueueMapBuffer(sg.b, CL_TRUE, CL_MAP_WRITE, 0, K * N * f));
    sg.C = static_cast<float*>(
        sg.queue.enqueueMapBuffer(sg.c, CL_TRUE, CL_MAP_READ | CL_MAP_WRITE, 0, M * N * f));
    std::copy(problem.A.begin(), problem.A.end(), sg.A);
    std::copy(problem.B.begin(), problem.B.end(), sg.B);
  }

  // 7. For each member: a profiling queue, matmul_regtile_simple built for its device (64x64
  //    blocks of C per work-group, or 32x32 where two 64x64 tiles would not fit its local
  //    memory), its arguments N, K, A, B and C set once (M, the rows of its share, at each run),
  //    and its buffers
  std::vector<Station> stations(count);
  for (std::size_t i = 0; i < count; ++i) {
    const Member& member = team.members[i];
    Station& st = stations[i];
    const cl::Context& context = team.contexts[member.context];
    st.queue = cl::CommandQueue(context, member.device, CL_QUEUE_PROFILING_ENABLE);
    if (lab::Trace* trace = lab::active_trace()) trace->name_queue(st.queue, member.name);
    const cl_ulong local_bytes = member.device.getInfo<CL_DEVICE_LOCAL_MEM_SIZE>();
    st.block = 2 * 64 * 64 * f <= local_bytes ? 64 : 32;
    lab::Defines defines = lab::real_defines("float");
    defines.push_back({"BLOCK", std::to_string(st.block), ""});
    defines.push_back({"WPT", "4", ""});
    const lab::Env env{member.platform, member.device, context, st.queue};
    const lab::Program program =
        lab::build_program(env, opt, "matmul_regtile_simple.cl", defines, out, false);
    st.kernel = lab::make_kernel(program, {"matmul_regtile_simple",
                                           {{"", "int", "M"},
                                            {"", "int", "N"},
                                            {"", "int", "K"},
                                            {"global", "float*", "A", true},
                                            {"global", "float*", "B", true},
                                            {"global", "float*", "C"}}});
    st.a = cl::Buffer(context, CL_MEM_READ_ONLY, M * K * f);
    st.b = cl::Buffer(context, CL_MEM_READ_ONLY, K * N * f);
    st.c = cl::Buffer(context, CL_MEM_WRITE_ONLY, M * N * f);
    st.kernel.setArg(1, int(N));
    st.kernel.setArg(2, int(K));
    st.kernel.setArg(3, st.a);
    st.kernel.setArg(4, st.b);
    st.kernel.setArg(5, st.c);
  }

  // 8. One run of a plan. Member after member: its rows of A and all of B uploaded, the kernel
  //    on its rows (the in-order queue keeps it after the uploads), its rows of C downloaded, all
  //    without blocking, and the queue flushed so the device starts while the host goes on to
  //    the next member; then every queue finished
  const auto run = [&](const Plan& plan) {
    std::vector<std::array<cl::Event, 4>> events(count);  // upload A, upload B, kernel, download
    const auto start = std::chrono::steady_clock::now();
    std::uint64_t row0 = 0;
    for (std::size_t i = 0; i < count; ++i) {
      const std::uint64_t rows = plan.rows[i];
      if (rows == 0) continue;
      Station& st = stations[i];
      const Staging& sg = staging[team.members[i].context];
      std::array<cl::Event, 4>& e = events[i];
      st.queue.enqueueWriteBuffer(st.a, CL_FALSE, 0, rows * K * f, sg.A + row0 * K, nullptr, &e[0]);
      st.queue.enqueueWriteBuffer(st.b, CL_FALSE, 0, K * N * f, sg.B, nullptr, &e[1]);
      st.kernel.setArg(0, int(rows));  // the arguments are taken when the kernel is enqueued
      const std::uint64_t rts = st.block / 4;  // work-items along each side of a work-group
      st.queue.enqueueNDRangeKernel(
          st.kernel, cl::NullRange,
          cl::NDRange(lab::ceil_div(N, st.block) * rts, lab::ceil_div(rows, st.block) * rts),
          cl::NDRange(rts, rts), nullptr, &e[2]);
      st.queue.enqueueReadBuffer(st.c, CL_FALSE, 0, rows * N * f, sg.C + row0 * N, nullptr, &e[3]);
      st.queue.flush();
      row0 += rows;
    }
    for (std::size_t i = 0; i < count; ++i) {
      if (plan.rows[i] > 0) stations[i].queue.finish();
    }
    const double host_s =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    std::vector<MemberTimes> times(count);
    for (std::size_t i = 0; i < count; ++i) {
      if (plan.rows[i] == 0) continue;
      const std::array<cl::Event, 4>& e = events[i];
      times[i] = {seconds_between(e[0], e[1]), seconds_between(e[2], e[2]),
                  seconds_between(e[3], e[3]), seconds_between(e[0], e[3])};
      const std::string& name = team.members[i].name;
      lab::trace_command(e[0], name + ": upload A");
      lab::trace_command(e[1], name + ": upload B");
      lab::trace_command(e[2], name + ": kernel");
      lab::trace_command(e[3], name + ": download C");
    }
    return std::make_pair(host_s, times);
  };

  // 9. Plans in turns, round after round (--warmup rounds untimed, then --reps): before each
  //    run every member's C and the staging C are cleared (a member that wrote nothing then
  //    shows as zeros, not as a previous run's result), and after it the rows each member
  //    downloaded are put together and compared, every element, with the reference
  std::vector<float> whole(M * N);
  const auto in_turns = [&](const std::vector<Plan>& plans) {
    std::vector<PlanRuns> runs(plans.size());
    int reps = opt.reps;
    std::string note;
    for (int round = -opt.warmup; round < reps; ++round) {
      for (std::size_t p = 0; p < plans.size(); ++p) {
        for (std::size_t i = 0; i < count; ++i) {
          stations[i].queue.enqueueFillBuffer(stations[i].c, 0.0f, 0, M * N * f);
          stations[i].queue.finish();
        }
        for (Staging& sg : staging) std::memset(sg.C, 0, M * N * f);
        const auto [host_s, times] = run(plans[p]);
        if (round < 0) continue;
        std::uint64_t row0 = 0;
        for (std::size_t i = 0; i < count; ++i) {
          const float* band = staging[team.members[i].context].C + row0 * N;
          std::copy(band, band + plans[p].rows[i] * N, whole.data() + row0 * N);
          row0 += plans[p].rows[i];
        }
        PlanRuns& r = runs[p];
        if (r.check.mismatches == 0) {  // after a wrong run, the first one's mismatches stand
          const std::size_t before = r.check.checked;
          r.check =
              lab::check_matmul(whole.data(), problem, "C (" + plans[p].name + ")", std::cerr);
          r.check.checked += before;
          if (r.check.mismatches > 0) {
            r.wrong_bands = wrong_bands(whole.data(), problem, team.members, plans[p].rows);
            std::cerr << "multi_device: " << team.part << ": " << plans[p].name
                      << ": wrong elements in " << r.wrong_bands
                      << ": check that device's offsets, sizes and launch\n";
          }
        }
        r.host_s.push_back(host_s);
        r.members.push_back(times);
        if (host_s > lab::kLongRunSeconds && reps > lab::kLongRunReps) {
          reps = std::max(round + 1, lab::kLongRunReps);
          note = "a run in these rounds took over " + lab::format_seconds(lab::kLongRunSeconds) +
                 ": " + std::to_string(reps) + " rounds timed";
        }
      }
    }
    return std::make_pair(runs, note);
  };

  // 10. Each member alone, in turns: the whole job on one device. Its time sets its rate, and
  //     the fastest one is the yardstick of the splits
  std::vector<Plan> alone;
  for (std::size_t i = 0; i < count; ++i) {
    Plan plan{team.members[i].name + " alone", std::vector<std::uint64_t>(count, 0), true};
    plan.rows[i] = M;
    alone.push_back(plan);
  }
  out << "\n"
      << team.part << ": C = A·B, " << d.text() << ", float, on " << count
      << " devices alone, then split by rows of C\n";
  const auto [alone_runs, alone_note] = in_turns(alone);
  std::vector<double> alone_s(count), weights(count, 0.0);
  std::size_t fastest = 0;
  for (std::size_t i = 0; i < count; ++i) {
    alone_s[i] = lab::summarize(alone_runs[i].host_s).median;
    if (alone_s[i] < alone_s[fastest]) fastest = i;
    if (team.members[i].splits) weights[i] = 1.0 / alone_s[i];
  }

  // 11. The splits, in turns with the fastest member alone: evenly (the same rows for each
  //     member that splits), and by rate (rows in proportion to each one's rate alone)
  std::uint64_t granule = 1;
  for (const Station& st : stations) granule = std::max(granule, st.block);
  std::vector<double> even(count, 0.0);
  for (std::size_t i = 0; i < count; ++i) even[i] = team.members[i].splits ? 1.0 : 0.0;
  const std::vector<Plan> splits = {alone[fastest],
                                    {"even split", rows_by_weight(M, even, granule)},
                                    {"split by rate", rows_by_weight(M, weights, granule)}};
  const auto [split_runs, split_note] = in_turns(splits);
  const double yardstick_s = lab::summarize(split_runs[0].host_s).median;
  // The staging memory unmapped: every run is done
  for (Staging& sg : staging) {
    sg.queue.enqueueUnmapMemObject(sg.a, sg.A);
    sg.queue.enqueueUnmapMemObject(sg.b, sg.B);
    sg.queue.enqueueUnmapMemObject(sg.c, sg.C);
    sg.queue.finish();
  }

  // The rows: each member alone, then the splits with their speed-up over the fastest alone
  std::vector<lab::Result> rows;
  nlohmann::json plans_json = nlohmann::json::array();
  const auto add_row = [&](const Plan& plan, const PlanRuns& runs, const std::string& note) {
    lab::Result row;
    row.variant = team.part + ": " + plan.name;
    row.size = d.size();
    lab::set_timing(row, lab::timing_of(runs.host_s, opt.warmup, "host", note));
    row.rate = lab::gigaflops(d.flops(), row.time->median);
    row.unit = "GFLOP/s";
    lab::set_check(row, runs.check);
    if (!runs.wrong_bands.empty()) row.add_note("wrong elements in " + runs.wrong_bands);
    nlohmann::json shares = nlohmann::json::array();
    std::ostringstream said;
    said << std::fixed << std::setprecision(1);
    for (std::size_t i = 0; i < count; ++i) {
      if (plan.rows[i] == 0) continue;
      const MemberTimes t = median_times(runs, i);
      shares.push_back({{"member", team.members[i].name},
                        {"rows", plan.rows[i]},
                        {"upload_s", t.upload_s},
                        {"kernel_s", t.kernel_s},
                        {"download_s", t.download_s},
                        {"span_s", t.span_s}});
      said.str("");
      if (!plan.alone) {
        said << team.members[i].name << ": " << plan.rows[i]
             << (plan.rows[i] == 1 ? " row (" : " rows (")
             << 100.0 * double(plan.rows[i]) / double(M) << "% of C), ";
      }
      said << "upload " << lab::format_seconds(t.upload_s) << ", kernel "
           << lab::format_seconds(t.kernel_s) << ", download " << lab::format_seconds(t.download_s)
           << ", span " << lab::format_seconds(t.span_s);
      row.add_note(said.str());
    }
    for (std::size_t i = 0; i < count; ++i) {
      if (plan.rows[i] == 0 && team.members[i].splits && !plan.alone) {
        row.add_note(team.members[i].name + ": no rows (its share is under half a block of " +
                     std::to_string(granule) + " rows)");
      }
    }
    plans_json.push_back({{"plan", plan.name}, {"host_s", runs.host_s}, {"shares", shares}});
    return row;
  };
  for (std::size_t i = 0; i < count; ++i) {
    rows.push_back(add_row(alone[i], alone_runs[i], alone_note));
    if (i == fastest) rows.back().add_note("the fastest alone: the splits' yardstick");
  }
  for (std::size_t p = 1; p < splits.size(); ++p) {
    rows.push_back(add_row(splits[p], split_runs[p], split_note));
    const double split_s = rows.back().time->median;
    rows.back().speedup = yardstick_s / split_s;
    std::ostringstream note;
    const double speedup = yardstick_s / split_s;
    if (speedup < 0.01) {
      note << std::setprecision(2) << speedup;  // two digits that say something, not 0.00
    } else {
      note << std::fixed << std::setprecision(2) << speedup;
    }
    note << "x " << team.members[fastest].name << " alone (" << lab::format_seconds(yardstick_s)
         << " in the same rounds as the splits)";
    rows.back().add_note(note.str());
  }
  const bool same_bands = splits[1].rows == splits[2].rows;
  if (same_bands) {
    rows[count + 1].add_note(
        "the same bands as the even split: the rates alone differ by less than "
        "half a block, so the two rows differ only by the noise of the runs");
  }

  // What the best split gained, and where its time went, in a few sentences from the figures:
  // each device's kernel against its share of its kernel time alone (devices that share cores
  // or memory run slower side by side), and the host's wait past the slowest device's commands
  const std::size_t b = same_bands || *rows[count].speedup >= *rows[count + 1].speedup ? 1 : 2;
  const double best = *rows[count + b - 1].speedup;
  std::ostringstream finding;
  finding << std::fixed << std::setprecision(2) << team.part << ": ";
  if (!rows[count].passed || !rows[count + 1].passed) {
    finding << "a split computed a wrong C (the mismatches above say where), so its time says "
               "nothing: no speed-up is claimed.";
    out << "\n";
    lab::print_wrapped(out, "", finding.str(), 0);
    details[team.part] = {{"finding", finding.str()}};
    return rows;
  }
  finding << "the "
          << (same_bands ? "even split (the split by rate gave the same bands)" : splits[b].name)
          << " ran " << best << "x as fast as " << team.members[fastest].name << " alone"
          << (best < 0.95   ? ": splitting cost more than it gave here."
              : best < 1.05 ? ", about as fast: splitting gained nothing here."
                            : ".");
  for (std::size_t i = 0; i < count; ++i) {
    if (team.members[i].splits && splits[b].rows[i] == 0) {
      finding << " It gave " << team.members[i].name << " no rows: its share was under half a "
              << "block of " << granule << ".";
    }
  }
  double slowest_span = 0, most_slowdown = 0;
  std::string slowed;
  for (std::size_t i = 0; i < count; ++i) {
    if (splits[b].rows[i] == 0) continue;
    const MemberTimes t = median_times(split_runs[b], i);
    slowest_span = std::max(slowest_span, t.span_s);
    const double share_alone =
        median_times(alone_runs[i], i).kernel_s * double(splits[b].rows[i]) / double(M);
    if (share_alone > 0 && t.kernel_s / share_alone > most_slowdown) {
      most_slowdown = t.kernel_s / share_alone;
      slowed = team.members[i].name;
    }
  }
  if (most_slowdown > 1.2) {
    finding << " Beside the others, " << slowed << "'s kernel took " << most_slowdown
            << "x its share of its kernel time alone: the devices took from each other what "
               "they share (cores, caches, memory, the host).";
  }
  const double split_s = rows[count + b - 1].time->median;
  if (split_s - slowest_span > 0.1 * split_s) {
    finding << " The job took " << lab::format_seconds(split_s) << " on the host's clock against "
            << lab::format_seconds(slowest_span)
            << " for the slowest device's commands: the rest is enqueueing, flushing and "
               "waiting on the host.";
  }
  out << "\n";
  lab::print_wrapped(out, "", finding.str(), 0);

  nlohmann::json members = nlohmann::json::array();
  for (const Member& m : team.members) {
    members.push_back({{"name", m.name},
                       {"device", lab::describe_device(m.device)},
                       {"context", m.context},
                       {"splits", m.splits}});
  }
  details[team.part] = {{"members", members},
                        {"fastest_alone", team.members[fastest].name},
                        {"plans", plans_json},
                        {"finding", finding.str()}};
  return rows;
}

}  // namespace multi_device
