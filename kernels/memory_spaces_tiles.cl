// memory_spaces_tiles.cl: fill_tiles, the 2-D work-group demonstration of Part 3: Work-Groups and
// Synchronization. Each work-group copies one TILE_DIM_Y x TILE_DIM_X tile of a and of b into local
// memory, waits at a barrier, and then each work-item multiplies an element of the b tile by an
// element of the a tile that another work-item loaded: without the barrier, that element may not be
// there yet. Built with -D TILE_DIM_X=.. -D TILE_DIM_Y=.. (the work-group's shape) -D N=.. (columns
// of the matrices, the row length) -D M=.. (rows), so the local arrays have a size known when the
// kernel is compiled, and -D BARRIER=0 to leave the barrier out (the --no-barrier demonstration).
// Indices: (row, col) the element of the M x N row-major matrices; (y, x) its place in the tile.
// The element read from the a tile is the tile's transpose read as a TILE_DIM_X x TILE_DIM_Y
// array, a[x][y] when the tile is square. Work-items outside the matrix (the NDRange is padded to
// whole tiles) load 0 into the tile, write nothing, and still reach the barrier.
#ifndef TILE_DIM_X
#define TILE_DIM_X 16  // work-group columns, and columns of a tile
#endif
#ifndef TILE_DIM_Y
#define TILE_DIM_Y 16  // work-group rows, and rows of a tile
#endif
#ifndef N
#define N 4096  // columns of the matrices (the row length)
#endif
#ifndef M
#define M 4096  // rows of the matrices
#endif
#ifndef BARRIER
#define BARRIER 1
#endif

__kernel void fill_tiles(__global const float* a, __global const float* b, __global float* c) {
  __local float aTile[TILE_DIM_Y * TILE_DIM_X];
  __local float bTile[TILE_DIM_Y][TILE_DIM_X];
  const int row = get_global_id(1);
  const int col = get_global_id(0);
  const int y = get_local_id(1);
  const int x = get_local_id(0);
  const bool inside = row < M && col < N;

  // EXERCISE(tiles): store this work-item's a and b (0 outside the matrix) in the tiles, then wait
  // for the group
  aTile[y * TILE_DIM_X + x] = inside ? a[row * N + col] : 0.0f;
  bTile[y][x] = inside ? b[row * N + col] : 0.0f;
#if BARRIER
  barrier(CLK_LOCAL_MEM_FENCE);  // every element of both tiles is loaded before anyone reads
#endif
  // END EXERCISE
  if (inside) c[row * N + col] = aTile[x * TILE_DIM_Y + y] * bTile[y][x];
}
