// spaces.cpp: memory_spaces' demonstrations. Each builds its kernels, times them on the event
// clock, and checks every element against a host computation; outputs have guard zones, so a
// kernel without its bounds check is named rather than passing or corrupting memory.
#include "spaces.hpp"

#include <algorithm>
#include <cfloat>
#include <cmath>
#include <cstdio>
#include <ostream>
#include <stdexcept>
#include <utility>

namespace spaces {
namespace {

// Each demonstration and its kernel file, in the order the lab runs them.
const std::vector<std::pair<std::string, std::string>> kPartFiles{
    {"constant", "memory_spaces_stencil.cl"},
    {"tiles", "memory_spaces_tiles.cl"},
    {"rows", "memory_spaces_rows.cl"},
    {"private", "memory_spaces_private.cl"}};

const std::string& part_file(const std::string& part) {
  for (const auto& [name, file] : kPartFiles) {
    if (name == part) return file;
  }
  throw std::logic_error("memory_spaces has no part " + part);
}

constexpr int kTaps = 5;
constexpr float kWeights[kTaps] = {1.0f, 3.0f, 5.0f, 3.0f, 1.0f};  // the stencil's weights

lab::Size elements(std::uint64_t n) { return lab::Size("n", std::int64_t(n)); }

// The 1-D launch of `items` work-items the parts share: --local, or the runtime's choice.
cl::Event enqueue_1d(lab::Env& env, const cl::Kernel& kernel, const lab::Launch1D& launch) {
  cl::Event event;
  env.queue.enqueueNDRangeKernel(kernel, cl::NullRange, cl::NDRange(launch.global),
                                 launch.local == 0 ? cl::NullRange : cl::NDRange(launch.local),
                                 nullptr, &event);
  return event;
}

// Reads `buffer` back, compares it with `want` element by element (`allowed` per element), checks
// its guards, and returns the row. `hint` says what a write outside the data means.
template <typename Allowed>
lab::Result checked_row(Context& c, lab::GuardedBuffer<float>& buffer, const double* want,
                        Allowed allowed, const std::string& variant, const lab::Size& size,
                        const lab::Timing& timing, double bytes, const std::string& what,
                        const std::string& hint, std::size_t columns = 0) {
  lab::CheckResult check;
  {
    const lab::Mapping<float> got = buffer.fetch(c.env.queue);
    check = lab::compare_each(got.data(), want, buffer.size(), allowed, c.err, what, columns);
  }
  const lab::GuardCheck guard = buffer.check_guards(c.env.queue);
  const std::string outside = lab::describe_guard_writes(guard, what, hint);
  if (!outside.empty()) c.err << "memory_spaces: " << outside << "\n";
  return lab::bandwidth_row(variant, size, timing, bytes, check, guard.total());
}

// The sentence and note for a local-memory kernel whose barriers may be missing: built without
// them (--no-barrier), a wrong result is the race the check caught and a right one was luck; a
// student's kernel that fails may have lost one. `race` says what goes wrong without them.
void explain_barrier(Context& c, lab::Result& row, const std::string& kernel,
                     const std::string& race) {
  if (!c.settings.no_barrier) {
    // Writes outside the data have their own sentence (a missing bounds check), which also
    // explains the wrong elements a write past a row's end leaves in the next row.
    if (row.wrong > 0 && row.out_of_bounds == 0) {
      c.err << "memory_spaces: " << kernel << ": " << row.wrong << " of " << row.checked
            << " elements are wrong. A missing or misplaced barrier does this: without one, "
            << race << " (oclgrind --data-races names such a race); a wrong index does too\n";
    }
    return;
  }
  if (row.wrong > 0) {
    c.err << "memory_spaces: " << kernel << " without its barrier: " << row.wrong << " of "
          << row.checked << " elements are wrong, because " << race
          << " (a data race: oclgrind --data-races names it)\n";
    row.add_note("built without the barrier: the race showed");
  } else {
    row.add_note(
        "built without the barrier and right by luck on this device: the race is still there "
        "(oclgrind --data-races reports it)");
  }
}

lab::Define barrier_define(const Settings& s) {
  return {"BARRIER", s.no_barrier ? "0" : "1", "--no-barrier"};
}

}  // namespace

std::vector<lab::Part> parts() {
  std::vector<lab::Part> table;
  for (const auto& [name, file] : kPartFiles) table.push_back({name, file});
  return table;
}

std::vector<lab::Result> constant_table(Context& c, const lab::CopyBaseline& copy) {
  const std::uint64_t n = c.settings.n;
  c.out << "\nconstant: y[i] = 1 x[i-2] + 3 x[i-1] + 5 x[i] + 3 x[i+1] + 1 x[i+2] over " << n
        << " floats, the weights in __global, __constant and program-scope __constant memory\n";
  const auto x = lab::random_vector<float>(n, lab::derive_seed(c.options.seed, 0), -1.0f, 1.0f);
  std::vector<double> want(n), scale(n);
  for (std::uint64_t i = 0; i < n; ++i) {
    double sum = 0, magnitude = 0;
    for (int k = 0; k < kTaps; ++k) {
      const long long j = static_cast<long long>(i) + k - kTaps / 2;
      if (j < 0 || j >= static_cast<long long>(n)) continue;
      sum += double(kWeights[k]) * x[j];
      magnitude += std::fabs(double(kWeights[k]) * x[j]);
    }
    want[i] = sum;
    scale[i] = magnitude;
  }
  // Five products summed in float, in any order and with or without fused multiply-adds.
  const auto allowed = [&](std::size_t i) { return 8 * FLT_EPSILON * scale[i] + 1e-30; };

  const lab::Program program =
      lab::build_program(c.env, c.options, part_file("constant"), {}, c.out);
  const lab::Size size = elements(n);
  lab::GuardedBuffer<float> x_buf(c.env, lab::BufferMode::copy, CL_MEM_READ_ONLY, n, 0, x.data());
  cl::Buffer weights(c.env.context, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, sizeof kWeights,
                     const_cast<float*>(kWeights));
  std::vector<lab::Result> rows;
  const std::pair<const char*, const char*> variants[] = {{"stencil_global", "global"},
                                                          {"stencil_constant", "constant"},
                                                          {"stencil_program_scope", ""}};
  for (const auto& [name, space] : variants) {
    std::vector<lab::KernelArg> args{{"", "ulong", "n"}, {"global", "float*", "x", true}};
    const bool table_argument = *space != '\0';
    if (table_argument) args.push_back({space, "float*", "w", true});
    args.push_back({"global", "float*", "y"});
    cl::Kernel kernel = lab::make_kernel(program, {name, args});
    const lab::Launch1D launch = lab::plan_1d(kernel, c.env.device, n, c.settings.local);
    lab::GuardedBuffer<float> y(c.env, lab::BufferMode::write, CL_MEM_WRITE_ONLY, n,
                                launch.global - n);
    int arg = 0;
    kernel.setArg(arg++, cl_ulong{n});
    kernel.setArg(arg++, x_buf.buffer());
    if (table_argument) kernel.setArg(arg++, weights);
    kernel.setArg(arg++, y.buffer());
    const lab::Timing timing = lab::time_launches(
        c.options, [&] { return enqueue_1d(c.env, kernel, launch); }, c.out);
    lab::Result row = checked_row(c, y, want.data(), allowed, name, size, timing, 8.0 * double(n),
                                  std::string("y (") + name + ")",
                                  "each work-item writes y[i] only, and padding work-items stop "
                                  "at `if (i >= n) return`");
    lab::relate_to_copy(row, copy);
    rows.push_back(row);
  }
  if (rows[0].rate > 0) {
    for (lab::Result& row : rows) row.speedup = row.rate / rows[0].rate;
  }
  return rows;
}

void check_tile(const cl::Device& device, const std::vector<std::uint64_t>& tile) {
  const std::string shape = lab::format_dims(tile);
  const std::uint64_t items = tile[0] * tile[1];
  const std::uint64_t bytes = 2 * items * sizeof(float);
  const std::uint64_t group_max = device.getInfo<CL_DEVICE_MAX_WORK_GROUP_SIZE>();
  const auto item_max = device.getInfo<CL_DEVICE_MAX_WORK_ITEM_SIZES>();
  if (items > group_max || tile[0] > item_max[0] || tile[1] > item_max[1]) {
    throw lab::RuntimeError(
        "--tile " + shape + " is a work-group of " + std::to_string(items) +
        " work-items, but the device allows at most " + std::to_string(group_max) +
        " per group and " + std::to_string(item_max[0]) + "x" + std::to_string(item_max[1]) +
        " per dimension (CL_DEVICE_MAX_WORK_GROUP_SIZE, CL_DEVICE_MAX_WORK_ITEM_SIZES): choose a "
        "smaller --tile");
  }
  const std::uint64_t local_memory = device.getInfo<CL_DEVICE_LOCAL_MEM_SIZE>();
  if (bytes > local_memory) {
    throw lab::RuntimeError("--tile " + shape + ": fill_tiles needs " +
                            lab::format_bytes(double(bytes)) + " of local memory for its two " +
                            shape + " tiles of floats, but the device has " +
                            lab::format_bytes(double(local_memory)) +
                            " (CL_DEVICE_LOCAL_MEM_SIZE): choose a smaller --tile");
  }
}

std::vector<lab::Result> tiles(Context& c) {
  const Settings& s = c.settings;
  const std::uint64_t H = s.height, W = s.width, TX = s.tile[0], TY = s.tile[1];
  const std::uint64_t elements = H * W;
  c.out << "\ntiles: fill_tiles over " << H << "x" << W << " floats in " << TX << "x" << TY
        << " tiles (-D TILE_DIM_X=" << TX << " -D TILE_DIM_Y=" << TY << " -D N=" << W
        << " -D M=" << H << ")" << (s.no_barrier ? ", built without the barrier" : "") << "\n";
  const auto a =
      lab::random_vector<float>(elements, lab::derive_seed(c.options.seed, 1), -1.0f, 1.0f);
  const auto b =
      lab::random_vector<float>(elements, lab::derive_seed(c.options.seed, 2), -1.0f, 1.0f);

  // The golden check: in each tile, the element at (y, x) is b there times the a tile's element
  // at linear place x*TY + y (a[x][y] for a square tile); tile elements outside the matrix are 0.
  std::vector<double> want(elements);
  for (std::uint64_t row = 0; row < H; ++row) {
    for (std::uint64_t col = 0; col < W; ++col) {
      const std::uint64_t y = row % TY, x = col % TX;
      const std::uint64_t place = x * TY + y;
      const std::uint64_t a_row = row - y + place / TX, a_col = col - x + place % TX;
      const float a_value = a_row < H && a_col < W ? a[a_row * W + a_col] : 0.0f;
      want[row * W + col] = double(a_value * b[row * W + col]);
    }
  }

  const lab::Defines defines{{"TILE_DIM_X", std::to_string(TX), "--tile"},
                             {"TILE_DIM_Y", std::to_string(TY), "--tile"},
                             {"N", std::to_string(W), "-W"},
                             {"M", std::to_string(H), "-H"},
                             barrier_define(s)};
  const lab::Program program =
      lab::build_program(c.env, c.options, part_file("tiles"), defines, c.out);
  cl::Kernel kernel = lab::make_kernel(program, {"fill_tiles",
                                                 {{"global", "float*", "a", true},
                                                  {"global", "float*", "b", true},
                                                  {"global", "float*", "c"}}});
  const std::vector<std::uint64_t> global{lab::round_up(W, TX), lab::round_up(H, TY)};
  lab::LaunchLimits limits;
  limits.group_advice = limits.local_advice = "choose a smaller --tile";
  lab::check_ndrange(kernel, c.env.device, global, {TX, TY}, limits);
  // Without the bounds check, the last padding work-item would write element
  // (global[1] - 1) * W + global[0] - 1: the guard zone after c covers that far.
  const std::uint64_t last = (global[1] - 1) * W + global[0] - 1;
  lab::GuardedBuffer<float> a_buf(c.env, lab::BufferMode::copy, CL_MEM_READ_ONLY, elements, 0,
                                  a.data());
  lab::GuardedBuffer<float> b_buf(c.env, lab::BufferMode::copy, CL_MEM_READ_ONLY, elements, 0,
                                  b.data());
  lab::GuardedBuffer<float> c_buf(c.env, lab::BufferMode::write, CL_MEM_WRITE_ONLY, elements,
                                  last >= elements ? last + 1 - elements : 0);
  kernel.setArg(0, a_buf.buffer());
  kernel.setArg(1, b_buf.buffer());
  kernel.setArg(2, c_buf.buffer());
  const lab::Timing timing = lab::time_launches(
      c.options,
      [&] {
        cl::Event event;
        c.env.queue.enqueueNDRangeKernel(kernel, cl::NullRange, lab::to_ndrange(global),
                                         cl::NDRange(TX, TY), nullptr, &event);
        return event;
      },
      c.out);
  lab::Result row = checked_row(
      c, c_buf, want.data(), [](std::size_t) { return 0.0; }, "fill_tiles",
      lab::Size("height", std::int64_t(H))
          .add("width", std::int64_t(W))
          .label(std::to_string(H) + "x" + std::to_string(W)),
      timing, 12.0 * double(elements), "c",
      "the launch is padded to whole tiles: work-items outside the matrix must not write c", W);
  row.tunables = {{"TILE_DIM_X", std::int64_t(TX)}, {"TILE_DIM_Y", std::int64_t(TY)}};
  explain_barrier(c, row, "fill_tiles",
                  "work-items read tile elements before the work-items that store them had "
                  "done so");
  return {row};
}

std::vector<lab::Result> rows(Context& c) {
  const Settings& s = c.settings;
  const std::uint64_t M = s.columns, R = s.row_count, K = s.row_length;
  c.out << "\nrows: Y (" << R << "x" << M << ") = B (" << R << "x" << K << ") A (" << K << "x" << M
        << "), each row of B staged in local memory (" << lab::format_bytes(4.0 * double(K)) << ")"
        << (s.no_barrier ? ", built without the barriers" : "") << "\n";
  const auto A = lab::random_vector<float>(K * M, lab::derive_seed(c.options.seed, 3), -1.0f, 1.0f);
  const auto B = lab::random_vector<float>(R * K, lab::derive_seed(c.options.seed, 4), -1.0f, 1.0f);
  std::vector<double> want(R * M), scale(R * M);
  for (std::uint64_t j = 0; j < R; ++j) {
    for (std::uint64_t k = 0; k < K; ++k) {
      const double bjk = B[j * K + k];
      for (std::uint64_t i = 0; i < M; ++i) {
        want[j * M + i] += bjk * A[k * M + i];
        scale[j * M + i] += std::fabs(bjk * A[k * M + i]);
      }
    }
  }
  // K products summed in float: the worst case of K roundings of the running sum.
  const auto allowed = [&](std::size_t e) { return double(K + 2) * FLT_EPSILON * scale[e]; };

  const lab::Program program =
      lab::build_program(c.env, c.options, part_file("rows"), {barrier_define(s)}, c.out);
  lab::GuardedBuffer<float> a_buf(c.env, lab::BufferMode::copy, CL_MEM_READ_ONLY, K * M, 0,
                                  A.data());
  lab::GuardedBuffer<float> b_buf(c.env, lab::BufferMode::copy, CL_MEM_READ_ONLY, R * K, 0,
                                  B.data());
  std::vector<lab::Result> rows;
  // Each row kernel, and what goes wrong in it without its barriers.
  const std::pair<const char*, const char*> kernels[] = {
      {"rows_cooperative",
       "work-items read row j of B before the work-items that copy it had done so, or while row "
       "j+1 overwrites it"},
      {"rows_async",
       "the group's copy of row j+1 of B overwrites row j while some work-items still read it"}};
  for (const auto& [name, race] : kernels) {
    cl::Kernel kernel = lab::make_kernel(program, {name,
                                                   {{"", "int", "M"},
                                                    {"", "int", "R"},
                                                    {"", "int", "K"},
                                                    {"global", "float*", "A", true},
                                                    {"global", "float*", "B", true},
                                                    {"global", "float*", "Y"},
                                                    {"local", "float*", "row"}}});
    lab::LaunchLimits limits;
    limits.dynamic_local_bytes = K * sizeof(float);
    limits.local_advice = "choose a shorter --row-length";
    limits.group_advice = "choose a smaller --local";
    lab::check_ndrange(kernel, c.env.device, {s.local == 0 ? M : lab::round_up(M, s.local)},
                       s.local == 0 ? std::vector<std::uint64_t>{} : std::vector{s.local}, limits);
    const lab::Launch1D launch = lab::plan_1d(kernel, c.env.device, M, s.local);
    lab::GuardedBuffer<float> y(c.env, lab::BufferMode::write, CL_MEM_WRITE_ONLY, R * M,
                                launch.global - M);
    kernel.setArg(0, cl_int(M));
    kernel.setArg(1, cl_int(R));
    kernel.setArg(2, cl_int(K));
    kernel.setArg(3, a_buf.buffer());
    kernel.setArg(4, b_buf.buffer());
    kernel.setArg(5, y.buffer());
    kernel.setArg(6, cl::Local(K * sizeof(float)));
    const lab::Timing timing = lab::time_launches(
        c.options, [&] { return enqueue_1d(c.env, kernel, launch); }, c.out);
    lab::Result row = checked_row(
        c, y, want.data(), allowed, name,
        lab::Size("m", std::int64_t(R))
            .add("n", std::int64_t(M))
            .add("k", std::int64_t(K))
            .label(std::to_string(R) + "x" + std::to_string(K) + "x" + std::to_string(M)),
        timing, 0, std::string("Y (") + name + ")", "padding work-items (i >= M) must not write Y",
        M);
    row.rate = lab::gigaflops(2.0 * double(R) * double(M) * double(K), timing.time.median);
    row.unit = "GFLOP/s";
    explain_barrier(c, row, name, race);
    rows.push_back(row);
  }
  if (rows[0].rate > 0) {
    for (lab::Result& row : rows) row.speedup = row.rate / rows[0].rate;
  }
  return rows;
}

std::vector<lab::Result> private_arrays(Context& c, const lab::CopyBaseline& copy) {
  const Settings& s = c.settings;
  const std::uint64_t n = s.n;
  c.out << "\nprivate: out[i] = v[0] v[P-1] + ... + v[P-1] v[0] over a private array v of P "
           "floats per work-item, "
        << n << " inputs in all\n";
  const auto x = lab::random_vector<float>(n, lab::derive_seed(c.options.seed, 5), -1.0f, 1.0f);
  lab::GuardedBuffer<float> x_buf(c.env, lab::BufferMode::copy, CL_MEM_READ_ONLY, n, 0, x.data());
  std::vector<lab::Result> rows;
  for (const std::uint64_t P : s.private_sizes) {
    const std::uint64_t items = lab::ceil_div(n, P);
    std::vector<double> want(items), scale(items);
    for (std::uint64_t i = 0; i < items; ++i) {
      for (std::uint64_t p = 0; p < P; ++p) {
        const std::uint64_t at = i + p * items, mirror = i + (P - 1 - p) * items;
        const double term = double(at < n ? x[at] : 0.0f) * double(mirror < n ? x[mirror] : 0.0f);
        want[i] += term;
        scale[i] += std::fabs(term);
      }
    }
    const auto allowed = [&](std::size_t i) { return double(P + 2) * FLT_EPSILON * scale[i]; };
    const lab::Program program =
        lab::build_program(c.env, c.options, part_file("private"),
                           {{"PRIVATE_SIZE", std::to_string(P), "--private-sizes"}}, c.out);
    cl::Kernel kernel = lab::make_kernel(program, {"private_pairs",
                                                   {{"", "ulong", "n"},
                                                    {"", "ulong", "items"},
                                                    {"global", "float*", "x", true},
                                                    {"global", "float*", "out"}}});
    if (s.local != 0) {
      lab::LaunchLimits limits;
      limits.private_bytes = P * sizeof(float);
      limits.private_advice = "choose a smaller --local or smaller --private-sizes";
      limits.tuning = "PRIVATE_SIZE=" + std::to_string(P);
      lab::check_ndrange(kernel, c.env.device, {lab::round_up(items, s.local)}, {s.local}, limits);
    }
    const lab::Launch1D launch = lab::plan_1d(kernel, c.env.device, items, s.local);
    lab::GuardedBuffer<float> out(c.env, lab::BufferMode::write, CL_MEM_WRITE_ONLY, items,
                                  launch.global - items);
    kernel.setArg(0, cl_ulong{n});
    kernel.setArg(1, cl_ulong{items});
    kernel.setArg(2, x_buf.buffer());
    kernel.setArg(3, out.buffer());
    const lab::Timing timing = lab::time_launches(
        c.options, [&] { return enqueue_1d(c.env, kernel, launch); }, c.out);
    const std::string name = "private P=" + std::to_string(P);
    lab::Result row = checked_row(c, out, want.data(), allowed, name, elements(n), timing,
                                  4.0 * double(n + items), "out (" + name + ")",
                                  "each work-item writes its own element only, and padding "
                                  "work-items stop at `if (i >= items) return`");
    row.tunables = {{"PRIVATE_SIZE", std::int64_t(P)}};
    const cl_ulong reported = kernel.getWorkGroupInfo<CL_KERNEL_PRIVATE_MEM_SIZE>(c.env.device);
    row.add_note("the driver reports " + lab::format_bytes(double(reported)) +
                 " of private memory per work-item (CL_KERNEL_PRIVATE_MEM_SIZE)");
    lab::relate_to_copy(row, copy);
    rows.push_back(row);
  }
  return rows;
}

}  // namespace spaces
