// transpose_family.cpp: the transpose table.
#include "transpose_family.hpp"

#include "lab/device.hpp"

namespace transpose {
namespace {

// One element per work-item: TILE x TILE groups over A, dimension 0 along its columns.
lab::NDRangePlan plan_tiles(const Dims& d, const lab::Tuning& t) {
  const std::uint64_t tile = t.whole("TILE");
  return {{lab::round_up(d.width, tile), lab::round_up(d.height, tile)}, {tile, tile}};
}

// multi and aligned: MULTI_TILE x MULTI_TILE/ROWS work-items per tile, tiles across A's width
// and down `rows` of its rows.
lab::NDRangePlan plan_multi(const Dims& d, const lab::Tuning& t, std::uint64_t rows) {
  const std::uint64_t tile = t.whole("MULTI_TILE"),
                      step = std::max<std::uint64_t>(1, tile / t.whole("ROWS"));
  return {{lab::round_up(d.width, tile), lab::ceil_div(rows, tile) * step}, {tile, step}};
}

// The rows of A (columns of B) that aligned's groups must span: height, and ALIGN - 1 more when
// rows of B start between ALIGN-element boundaries (their pieces move left by up to ALIGN - 1).
std::uint64_t shifted_reach(const Dims& d, const lab::Tuning& t) {
  const std::uint64_t align = t.whole("ALIGN");
  return std::uint64_t(d.height) + (d.height % align == 0 ? 0 : align - 1);
}

// A kernel that checks every access reaches exactly A and B.
std::vector<std::uint64_t> covers_exactly(const Dims& d, const lab::Tuning&) {
  return {std::uint64_t(d.height), std::uint64_t(d.width)};
}

// `pad` columns past TILE in its local tile, or no tile when negative.
Variant row(const char* name, const char* summary, int pad) {
  Variant v;
  v.name = name;
  v.summary = summary;
  v.kernel_file = std::string("transpose_") + name + ".cl";
  v.kernel_name = std::string("transpose_") + name;
  v.tunables = {"TILE"};
  v.plan = plan_tiles;
  v.covers = [](const Dims& d, const lab::Tuning& t) -> std::vector<std::uint64_t> {
    return {lab::round_up(d.height, t.whole("TILE")), lab::round_up(d.width, t.whole("TILE"))};
  };
  if (pad >= 0) {
    v.local_bytes = [pad](const lab::Tuning& t, std::size_t element) {
      return t.whole("TILE") * (t.whole("TILE") + std::uint64_t(pad)) * element;
    };
  }
  return v;
}

Family make_family() {
  Family f;
  f.name = "transpose";
  // Read A, write B: 4 bytes an element of float or int (the lab scales it for double).
  f.work = [](const Dims& d) { return lab::Work{0, 8.0 * double(d.elements())}; };
  lab::Tunable tile;
  tile.name = "TILE";
  tile.option = "--tile";
  tile.meaning = "Tile side: work-groups of TILE x TILE";
  tile.max = 1024;
  tile.candidates = {8, 16, 32, 64};
  tile.grows = lab::kGrowsGroup | lab::kGrowsLocal;
  lab::Tunable multi_tile = tile.like("MULTI_TILE", "--multi-tile",
                                      "multi, aligned: their tile side (the kernel's TILE): "
                                      "work-groups of MULTI_TILE x MULTI_TILE/ROWS",
                                      tile.candidates);
  multi_tile.define = false;  // passed as -DTILE
  lab::Tunable rows =
      tile.like("ROWS", "--rows-per-item",
                "multi, aligned: elements of a tile column each work-item moves (divides TILE)",
                {1, 2, 4, 8, 16});
  rows.grows = lab::kGrowsNothing;
  lab::Tunable block_rows = rows.like(
      "BLOCK_ROWS", "--block-rows",
      "blocks: rows of A each work-item moves, 16 at a time as two 8 x 8 blocks (a multiple of 16)",
      {16, 32, 64});
  block_rows.grows = lab::kGrowsPrivate;
  lab::Tunable strip = rows.like(
      "STRIP", "--strip", "blocks: work-items per work-group down a strip of A 8 columns wide",
      {1, 2, 4, 16, 64});
  strip.define = false;
  strip.grows = lab::kGrowsGroup;
  const lab::Tunable strips = strip.like(
      "STRIPS", "--strips", "blocks: strips side by side in a work-group (work-items across)",
      {1, 2, 4, 8, 16});
  const lab::Tunable stream =
      rows.like(
              "STREAM", "--streaming-stores",
              "blocks: ordinary stores into B, or non-temporal ones that skip reading B's lines "
              "first (where a store is aligned to its 8 elements and the compiler has the builtin)",
              {})
          .choices({"off", "on"});
  lab::Tunable align = rows.like("ALIGN", "--align",
                                 "aligned: elements between write boundaries in B's rows, "
                                 "dividing MULTI_TILE (8 floats: a 32-byte sector)",
                                 {1, 4, 8, 16, 32});
  align.grows = lab::kGrowsLocal;
  f.tunables = {tile, multi_tile, rows, align, block_rows, strip, strips, stream};

  Variant copy = row("copy", "B = A with the same launch: the ceiling", -1);
  copy.extra.transposes = false;
  f.variants.push_back(copy);
  f.variants.push_back(row("naive", "B[j][i] = A[i][j]: uncoalesced writes", -1));
  f.variants.push_back(row("coalesced", "through a TILE x TILE local tile", 0));
  f.variants.push_back(row("padded", "a TILE x (TILE+1) tile: no bank conflicts", 1));
  f.variants.push_back(row("diagonal", "padded, work-groups in diagonal order", 1));
  // multi's tile has its own tunable: with a quarter or less of the work-items, it can be larger
  // than the other rows' (on a GPU whose kernels take 256 work-items, 64 x 64 against 16 x 16).
  Variant multi = row("multi", "padded, ROWS elements per work-item", 1);
  multi.tunables = {"MULTI_TILE", "ROWS"};
  multi.derived = [](const Dims&, const lab::Tuning& t) -> lab::Defines {
    return {{"TILE", std::to_string(t["MULTI_TILE"]), "--multi-tile"}};
  };
  multi.plan = [](const Dims& d, const lab::Tuning& t) { return plan_multi(d, t, d.height); };
  multi.covers = [](const Dims& d, const lab::Tuning& t) -> std::vector<std::uint64_t> {
    return {lab::round_up(d.height, t.whole("MULTI_TILE")),
            lab::round_up(d.width, t.whole("MULTI_TILE"))};
  };
  multi.local_bytes = [](const lab::Tuning& t, std::size_t element) {
    return t.whole("MULTI_TILE") * (t.whole("MULTI_TILE") + 1) * element;
  };
  f.variants.push_back(multi);

  // aligned: multi's tile and group, each row of B cut at multiples of ALIGN elements. Its groups
  // along A's rows reach ALIGN - 1 columns of B further when the rows are shifted.
  Variant aligned = multi;
  aligned.name = "aligned";
  aligned.summary = "multi, each row of B written from ALIGN-element boundaries";
  aligned.kernel_file = "transpose_aligned.cl";
  aligned.kernel_name = "transpose_aligned";
  aligned.tunables = {"MULTI_TILE", "ROWS", "ALIGN"};
  aligned.plan = [](const Dims& d, const lab::Tuning& t) {
    return plan_multi(d, t, shifted_reach(d, t));
  };
  aligned.covers = covers_exactly;  // every access is checked
  aligned.local_bytes = [](const lab::Tuning& t, std::size_t element) {
    return (t.whole("MULTI_TILE") + t.whole("ALIGN")) * (t.whole("MULTI_TILE") + 1) * element;
  };
  f.variants.push_back(aligned);

  Variant blocks = row("blocks", "16 x 8 pieces in registers, no local memory: for CPUs", -1);
  blocks.tunables = {"BLOCK_ROWS", "STRIP", "STRIPS", "STREAM"};
  blocks.plan = [](const Dims& d, const lab::Tuning& t) -> lab::NDRangePlan {
    const std::uint64_t strip = t.whole("STRIP"), strips = t.whole("STRIPS");
    const std::uint64_t items_down = lab::ceil_div(d.height, t.whole("BLOCK_ROWS"));
    return {
        {lab::round_up((std::uint64_t(d.width) + 7) / 8, strips), lab::round_up(items_down, strip)},
        {strips, strip}};
  };
  blocks.covers = covers_exactly;  // every access is checked: edge blocks element by element
  f.variants.push_back(blocks);
  return f;
}

}  // namespace

const Family& family() {
  static const Family table = make_family();
  return table;
}

lab::Tuning default_tuning(const cl::Device& device) {
  const bool gpu = (device.getInfo<CL_DEVICE_TYPE>() & CL_DEVICE_TYPE_GPU) != 0;
  // Measured on an H100 at 8192 x 8192: multi 64 x 64 with ROWS 16 (64 x 4 work-items) 96% of the
  // copy kernel, 32 / 8 93%, 16 / 4 90%; NVIDIA takes at most 256 work-items in these kernels.
  // aligned cuts B's rows every 16 floats (64 bytes), not every 8 (a 32-byte sector): in turns,
  // at 8191 x 8193 an H100 91.5-92.3% of copy against 90.2-90.5%, an H200 88.2-88.4% against
  // 84.0-84.6%; 8193 x 4097 on the H100 95.7-96.0% against 91.8-93.8%; 8192 x 8192 unchanged.
  // With its tiles taken down A's columns first, the H200 reads 91.7-91.8% at 8191 x 8193.
  // blocks is the CPU's kernel; on an H200 at 8192 x 8192 it reads 24% of copy with 16 work-items
  // down a strip, 14% with 64.
  if (gpu) {
    return lab::Tuning().with({{"TILE", 16},
                               {"MULTI_TILE", 64},
                               {"ROWS", 16},
                               {"ALIGN", 16},
                               {"BLOCK_ROWS", 16},
                               {"STRIP", 16},
                               {"STRIPS", 1},
                               {"STREAM", 0}});
  }
  // blocks on a CPU: one work-item down, eight side by side, so a group reads 16 rows of A along
  // 64 columns and the next group goes on along the same rows (the prefetchers follow 16 streams
  // of loads); each of its stores into B completes a 64-byte line two stores at a time, and the
  // stores skip the cache (non-temporal), so scattering them over 8 rows of B costs nothing.
  // On a 2-core AMD EPYC VM, in turns with the copy kernel, six runs: AVX-512 code 85-92% of it
  // at 4096 x 4096 and 80-98% at 8192 x 8192, AVX2 code 85-91% and 70-96%; in three of them 8 rows
  // a work-item in groups 4 down and 4 across read 64-84%, 37-71%, 52-79% and 32-73%. 32 rows a
  // work-item 53-81%; 4 work-items across no better than 8.
  return lab::Tuning().with({{"TILE", 16},
                             {"MULTI_TILE", 16},
                             {"ROWS", 16},
                             {"ALIGN", 8},
                             {"BLOCK_ROWS", 16},
                             {"STRIP", 1},
                             {"STRIPS", 8},
                             {"STREAM", 1}});
}

Reach launch_reach(const Variant& variant, const Dims& d, const lab::Tuning& t) {
  const std::vector<std::uint64_t> covered = variant.covers(d, t);  // rows, columns of A
  const std::uint64_t H = d.height, W = d.width, rows = covered[0], cols = covered[1];
  Reach reach;
  reach.a = (rows - 1) * W + cols - H * W;  // the last element of A read without checks
  // B written without checks: B[j * height + i] for the transposes, B[i * width + j] for copy.
  reach.b = variant.extra.transposes ? (cols - 1) * H + rows - H * W : reach.a;
  return reach;
}

lab::KernelSignature signature(const std::string& real) {
  return {"",
          {{"", "int", "height"},
           {"", "int", "width"},
           {"global", real + "*", "A", true},
           {"global", real + "*", "B"}}};
}

}  // namespace transpose
