// transpose_family.cpp: the transpose table.
#include "transpose_family.hpp"

namespace transpose {
namespace {

std::uint64_t at(const lab::Tuning& t, const char* name) {
  return static_cast<std::uint64_t>(t[name]);
}

// One element per work-item: TILE x TILE groups over A, dimension 0 along its columns.
lab::NDRangePlan plan_tiles(const Dims& d, const lab::Tuning& t) {
  const std::uint64_t tile = at(t, "TILE");
  return {{lab::round_up(d.width, tile), lab::round_up(d.height, tile)}, {tile, tile}};
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
    return {lab::round_up(d.height, at(t, "TILE")), lab::round_up(d.width, at(t, "TILE"))};
  };
  if (pad >= 0) {
    v.local_bytes = [pad](const lab::Tuning& t, std::size_t element) {
      return at(t, "TILE") * (at(t, "TILE") + std::uint64_t(pad)) * element;
    };
  }
  return v;
}

Family make_family() {
  Family f;
  f.name = "transpose";
  f.work = [](const Dims& d) { return lab::Work{0, 2.0 * double(d.elements())}; };
  lab::Tunable tile;
  tile.name = "TILE";
  tile.option = "--tile";
  tile.meaning = "Tile side: work-groups of TILE x TILE (multi: TILE x TILE/ROWS)";
  tile.max = 1024;
  tile.candidates = {8, 16, 32, 64};
  tile.grows = lab::kGrowsGroup | lab::kGrowsLocal;
  lab::Tunable rows = tile;
  rows.name = "ROWS";
  rows.option = "--rows-per-item";
  rows.meaning = "multi: elements of a tile column each work-item moves (divides TILE)";
  rows.candidates = {1, 2, 4, 8, 16};
  rows.grows = lab::kGrowsNothing;
  f.tunables = {tile, rows};

  Variant copy = row("copy", "B = A with the same launch: the ceiling", -1);
  copy.extra.transposes = false;
  f.variants.push_back(copy);
  f.variants.push_back(row("naive", "B[j][i] = A[i][j]: uncoalesced writes", -1));
  f.variants.push_back(row("coalesced", "through a TILE x TILE local tile", 0));
  f.variants.push_back(row("padded", "a TILE x (TILE+1) tile: no bank conflicts", 1));
  f.variants.push_back(row("diagonal", "padded, work-groups in diagonal order", 1));
  Variant multi = row("multi", "padded, ROWS elements per work-item", 1);
  multi.tunables = {"TILE", "ROWS"};
  multi.plan = [](const Dims& d, const lab::Tuning& t) -> lab::NDRangePlan {
    const std::uint64_t tile = at(t, "TILE"),
                        step = std::max<std::uint64_t>(1, tile / at(t, "ROWS"));
    return {{lab::round_up(d.width, tile), lab::round_up(d.height, tile) / tile * step},
            {tile, step}};
  };
  f.variants.push_back(multi);
  return f;
}

}  // namespace

std::string Dims::text() const { return std::to_string(height) + "x" + std::to_string(width); }

const Family& family() {
  static const Family table = make_family();
  return table;
}

lab::Tuning default_tuning(const cl::Device& device) {
  const bool gpu = (device.getInfo<CL_DEVICE_TYPE>() & CL_DEVICE_TYPE_GPU) != 0;
  return gpu ? lab::Tuning().with({{"TILE", 32}, {"ROWS", 4}})
             : lab::Tuning().with({{"TILE", 16}, {"ROWS", 16}});
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

}  // namespace transpose
