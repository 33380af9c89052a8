"""torch_peers.py: PyTorch's own scan, histogram, reduction, 2-D convolution and matrix product
on the same GPU, the peers of the scan, histogram, reduction, images and matmul labs
(torch.cumsum; torch.bincount and torch.histc; torch.sum and torch.dot;
torch.nn.functional.conv2d, cuDNN's; torch.matmul, cuBLAS's SGEMM and DGEMM).

Usage: torch_peers.py [--sizes 2^26,2^28] [--bins 256] [--reps 20] [--double]
                      [--image 8192x8192] [--radii 2,8] [--gemm 4096,8192]
                      [--transfers 2^20,2^26]

--transfers N,... times host-to-device and device-to-host copies of N bytes (uint8) from pinned
memory (pin_memory=True, non_blocking=True) and from pageable memory, the peers of the
transfers lab's pinned and pageable paths, counted as N bytes moved.

--double also times the scan and the reductions in float64 (16 and 8 bytes per element).
--gemm N,... times C = A @ B for N x N matrices in float32 (TF32 off: true FP32 FMAs, as the
lab's kernels) and float64, counted as 2 N^3 flops; on an H100 or H200 cuBLAS's DGEMM runs on the
FP64 tensor cores, which OpenCL cannot reach, so its rate can pass the FP64 FMA peak the lab
measures.

The convolution is the images lab's Gaussian blur of radius r (sigma = r / 2) on one float
image: conv2d with the (2r+1)^2 filter, and as two passes (a (2r+1) x 1 then a 1 x (2r+1)
filter), each after replicate padding (the lab's borders clamped to the edge, which the timing
includes), counted as the lab counts it: 8 bytes a pixel. The full filter is also timed with
conv2d's own zero padding (no padded copy, borders not clamped): the fastest call cuDNN offers,
though not the lab's result at the border. `--sizes none` times the convolutions only;
`--image none` leaves them out.

Each is timed with CUDA events around one call, after 3 warm-ups; the median and min of --reps
calls are printed with the rate counted as the labs count it: 8 bytes per element for a scan
(read once, write once), 4 per key for a histogram (the keys read), 4 per term read for a
reduction. A reduction is also timed end to end, as the reduction lab's "end to end" column is:
on the host's clock, from the call to the total on the host (`.item()`). Inputs are uniform:
floats in [-1, 1) for the scan and the reductions, int32 keys in [0, bins) for bincount, floats
in [0, bins) for histc.
PyTorch is not part of the suite; run this where it is installed (a GPU machine), in the same
session as the labs, so that the figures compare.
"""
import argparse
import sys
import time


def size(text):
    base, _, exponent = text.partition("^")
    return int(base) ** int(exponent) if exponent else int(text)


def timed(torch, call, reps, on_host=False):
    """The median and min seconds of `call` after 3 warm-ups: between CUDA events around it, or
    (on_host) on the host's clock, which then includes whatever the call waits for."""
    import time
    for _ in range(3):
        call()
    torch.cuda.synchronize()
    times = []
    for _ in range(reps):
        if on_host:
            start = time.perf_counter()
            call()
            times.append(time.perf_counter() - start)
            continue
        start = torch.cuda.Event(enable_timing=True)
        end = torch.cuda.Event(enable_timing=True)
        start.record()
        call()
        end.record()
        torch.cuda.synchronize()
        times.append(start.elapsed_time(end) / 1e3)
    times.sort()
    return times[len(times) // 2], times[0]


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--sizes", default="2^26,2^28")
    parser.add_argument("--bins", type=int, default=256)
    parser.add_argument("--reps", type=int, default=20)
    parser.add_argument("--image", default="8192x8192", help="HEIGHTxWIDTH for conv2d, or none")
    parser.add_argument("--radii", default="2,8", help="the blur's radii for conv2d")
    parser.add_argument("--double", action="store_true",
                        help="also the scan and the reductions in float64")
    parser.add_argument("--gemm", default="none", help="matrix sides for torch.matmul, or none")
    parser.add_argument("--transfers", default="none",
                        help="bytes of the host-device copies (2^12,2^20,...), or none")
    options = parser.parse_args()
    try:
        import torch
    except ImportError:
        sys.exit("torch_peers.py: PyTorch is not installed here")
    if not torch.cuda.is_available():
        sys.exit("torch_peers.py: PyTorch sees no CUDA device")
    print(f"torch_peers.py: {torch.cuda.get_device_name(0)}, PyTorch {torch.__version__}")
    sizes = [] if options.sizes == "none" else options.sizes.split(",")
    for n in (size(s) for s in sizes):
        values = torch.rand(n, device="cuda") * 2 - 1
        keys = torch.randint(0, options.bins, (n,), device="cuda", dtype=torch.int32)
        spread = torch.rand(n, device="cuda") * options.bins
        runs = [("torch.cumsum", 8, lambda: torch.cumsum(values, 0)),
                ("torch.bincount", 4, lambda: torch.bincount(keys, minlength=options.bins)),
                ("torch.histc", 4,
                 lambda: torch.histc(spread, bins=options.bins, min=0, max=options.bins))]
        for name, bytes_per, call in runs:
            median, least = timed(torch, call, options.reps)
            print(f"{name} n={n} bins={options.bins}: median {median * 1e3:.3f} ms, "
                  f"min {least * 1e3:.3f} ms, {bytes_per * n / median / 1e9:.0f} GB/s "
                  f"({bytes_per} bytes per element)")
        other = torch.rand(n, device="cuda") * 2 - 1
        for name, bytes_per, call in [("torch.sum", 4, lambda: torch.sum(values)),
                                      ("torch.dot", 8, lambda: torch.dot(values, other))]:
            median, least = timed(torch, call, options.reps)
            whole, whole_least = timed(torch, lambda: call().item(), options.reps, on_host=True)
            print(f"{name} n={n}: median {median * 1e3:.3f} ms, min {least * 1e3:.3f} ms, "
                  f"{bytes_per * n / median / 1e9:.0f} GB/s; end to end (.item()) median "
                  f"{whole * 1e3:.3f} ms, min {whole_least * 1e3:.3f} ms, "
                  f"{bytes_per * n / whole / 1e9:.0f} GB/s")
        del values, keys, spread, other
        torch.cuda.empty_cache()
        if options.double:
            doubles = torch.rand(n, device="cuda", dtype=torch.float64) * 2 - 1
            more = torch.rand(n, device="cuda", dtype=torch.float64) * 2 - 1
            for name, bytes_per, call in [("torch.cumsum float64", 16,
                                           lambda: torch.cumsum(doubles, 0)),
                                          ("torch.sum float64", 8, lambda: torch.sum(doubles)),
                                          ("torch.dot float64", 16,
                                           lambda: torch.dot(doubles, more))]:
                median, least = timed(torch, call, options.reps)
                print(f"{name} n={n}: median {median * 1e3:.3f} ms, min {least * 1e3:.3f} ms, "
                      f"{bytes_per * n / median / 1e9:.0f} GB/s ({bytes_per} bytes per element)")
            del doubles, more
            torch.cuda.empty_cache()
    convolutions(torch, options)
    if options.gemm != "none":
        matrix_products(torch, options)
    if options.transfers != "none":
        transfers(torch, options)


def transfers(torch, options):
    """The transfers lab's pinned and pageable paths: a uint8 tensor copied to the GPU and back,
    from host memory pinned by PyTorch (pin_memory=True, non_blocking) and from pageable memory,
    each timed with CUDA events around the copy."""
    for n in (size(s) for s in options.transfers.split(",")):
        pinned = torch.randint(0, 256, (n,), dtype=torch.uint8).pin_memory()
        pageable = pinned.clone()
        device = torch.empty(n, dtype=torch.uint8, device="cuda")
        runs = [("up pinned", lambda: device.copy_(pinned, non_blocking=True)),
                ("down pinned", lambda: pinned.copy_(device, non_blocking=True)),
                ("up pageable", lambda: device.copy_(pageable)),
                ("down pageable", lambda: pageable.copy_(device))]
        for name, call in runs:
            median, least = timed(torch, call, options.reps)
            print(f"torch copy_ {name} {n} bytes: median {median * 1e6:.1f} us, "
                  f"min {least * 1e6:.1f} us, {n / median / 1e9:.2f} GB/s")
        del pinned, pageable, device
        torch.cuda.empty_cache()


def convolutions(torch, options):
    """The images lab's blur through conv2d: the full filter, and rows then columns."""
    import math
    functional = torch.nn.functional
    if options.image == "none":
        return
    height, width = (int(v) for v in options.image.lower().split("x"))
    image = torch.rand(1, 1, height, width, device="cuda")
    for r in (int(v) for v in options.radii.split(",")):
        sigma = max(r, 1) / 2
        g = torch.tensor([math.exp(-0.5 * d * d / (sigma * sigma)) for d in range(-r, r + 1)],
                         device="cuda")
        g = g / g.sum()
        full = (g[:, None] * g[None, :]).reshape(1, 1, 2 * r + 1, 2 * r + 1)
        column = g.reshape(1, 1, 2 * r + 1, 1)
        row = g.reshape(1, 1, 1, 2 * r + 1)

        def whole():
            return functional.conv2d(functional.pad(image, (r, r, r, r), mode="replicate"), full)

        def passes():
            rows = functional.conv2d(functional.pad(image, (r, r, 0, 0), mode="replicate"), row)
            return functional.conv2d(functional.pad(rows, (0, 0, r, r), mode="replicate"), column)

        def zero_padded():
            return functional.conv2d(image, full, padding=r)

        for name, call in [("conv2d", whole), ("conv2d rows+columns", passes),
                           ("conv2d zero-padded", zero_padded)]:
            median, least = timed(torch, call, options.reps)
            pixels = height * width
            print(f"{name} {height}x{width} r={r}: median {median * 1e3:.3f} ms, "
                  f"min {least * 1e3:.3f} ms, {pixels / median / 1e6:.0f} MPixel/s, "
                  f"{8 * pixels / median / 1e9:.0f} GB/s (8 bytes a pixel)")


def matrix_products(torch, options):
    """C = A @ B through cuBLAS in float32 (TF32 off) and float64, inputs uniform in [-1, 1)."""
    torch.backends.cuda.matmul.allow_tf32 = False
    for n in (size(s) for s in options.gemm.split(",")):
        for dtype in (torch.float32, torch.float64):
            a = torch.rand(n, n, device="cuda", dtype=dtype) * 2 - 1
            b = torch.rand(n, n, device="cuda", dtype=dtype) * 2 - 1
            median, least = timed(torch, lambda: a @ b, options.reps)
            name = "sgemm" if dtype == torch.float32 else "dgemm"
            print(f"torch.matmul ({name}, cuBLAS) N={n}: median {median * 1e3:.3f} ms, "
                  f"min {least * 1e3:.3f} ms, {2 * n ** 3 / median / 1e9:.0f} GFLOP/s")
            del a, b
            torch.cuda.empty_cache()


if __name__ == "__main__":
    main()
