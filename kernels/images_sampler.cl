// images_sampler.cl: images read through samplers. horizontal_reflect mirrors an image left to
// right (each work-item reads pixel (width-1-x, y) of src and writes it at (x, y) of dst); sample
// reads src at given coordinates through a sampler the host makes, to show what each sampler
// setting (coordinates, filter, address mode) does.
// Indices: x along a row (dimension 0), y down the columns (dimension 1); i a coordinate's number.

// One work-item per pixel of dst; the launch may be padded past the image, so each checks its pixel.
__kernel void horizontal_reflect(read_only image2d_t src, write_only image2d_t dst) {
  const sampler_t sampler = CLK_NORMALIZED_COORDS_FALSE | CLK_ADDRESS_NONE | CLK_FILTER_NEAREST;
  const int x = get_global_id(0), y = get_global_id(1);
  const int width = get_image_width(src);
  if (x < width && y < get_image_height(src)) {
    // EXERCISE(reflect): read pixel (width - 1 - x, y) of src through the sampler, and write it at (x, y) of dst
    const float4 pixel = read_imagef(src, sampler, (int2)(width - 1 - x, y));
    write_imagef(dst, (int2)(x, y), pixel);
    // END EXERCISE
  }
}

// out[i] = src read at at[i] through `sampler` (the host's cl::Sampler): integer or normalized
// coordinates, nearest or linear filtering, and one address mode.
__kernel void sample(read_only image2d_t src, sampler_t sampler, __global const float2* at,
                     const int count, __global float4* out) {
  const int i = get_global_id(0);
  if (i < count) out[i] = read_imagef(src, sampler, at[i]);
}
