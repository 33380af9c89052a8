"""opencv_peers.py: OpenCV's own 2-D filters on the host, the peers of the images lab:
cv2.sepFilter2D (rows then columns) and cv2.filter2D (the whole (2r+1)^2 filter) on the lab's
Gaussian blur of radius r (sigma = r / 2) or its Sobel x derivative, borders replicated (the lab's
clamp to the edge).

Usage: opencv_peers.py [-H 4096] [-W 4096] [--radius 2] [--filter gauss|sobel] [--reps 10]
                       [--threads N]

Each call is timed on the host's clock, the median and min of --reps calls after 2 warm-ups,
with the rate counted as the lab counts it: 8 bytes a pixel (read once, written once); OpenCV
uses as many threads as cv2.getNumThreads() reports (--threads sets it). Each result is checked
against the same convolution in double (numpy), within 1e-5 of the sum of |weight * pixel| (OpenCV
may filter a large kernel through a DFT, whose rounding is not the direct sum's). Run it on the
machine and at the sizes of the lab's run to compare. Exit codes: 0 checked and timed; 1 a result
out of its bound; 2 bad arguments; 77 OpenCV or numpy not installed (Debian: python3-opencv).
"""
import argparse
import math
import sys
import time


def make_filter(name, radius):
    """(column, row) weights, as the lab's images::make_filter."""
    if name == "sobel":
        return [1.0, 2.0, 1.0], [-1.0, 0.0, 1.0]
    sigma = max(radius, 1) / 2
    g = [math.exp(-0.5 * d * d / (sigma * sigma)) for d in range(-radius, radius + 1)]
    total = sum(g)
    return [v / total for v in g], [v / total for v in g]


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("-H", "--height", type=int, default=4096)
    parser.add_argument("-W", "--width", type=int, default=4096)
    parser.add_argument("--radius", type=int, default=2)
    parser.add_argument("--filter", choices=["gauss", "sobel"], default="gauss")
    parser.add_argument("--reps", type=int, default=10)
    parser.add_argument("--threads", type=int, default=0)
    options = parser.parse_args()
    if options.height < 1 or options.width < 1 or options.radius < 0 or options.reps < 1:
        parser.error("sizes and --reps must be 1 or more, --radius 0 or more")
    try:
        import cv2
        import numpy as np
    except ImportError as missing:
        print(f"opencv_peers.py: skipped: {missing.name} is not installed (Debian: "
              "apt-get install python3-opencv)")
        sys.exit(77)
    if options.threads:
        cv2.setNumThreads(options.threads)
    column, row = make_filter(options.filter, options.radius)
    r = (len(row) - 1) // 2
    col = np.array(column, dtype=np.float32)
    rw = np.array(row, dtype=np.float32)
    full = np.outer(col, rw).astype(np.float32)
    image = np.random.default_rng(1).random((options.height, options.width), dtype=np.float32)

    # The reference in double, and each pixel's scale: sum |weight * pixel|.
    padded = np.pad(image.astype(np.float64), r, mode="edge")
    want = np.zeros(image.shape)
    scale = np.zeros(image.shape)
    for dy in range(-r, r + 1):
        for dx in range(-r, r + 1):
            w = float(col[dy + r]) * float(rw[dx + r])
            tap = padded[r + dy:r + dy + options.height, r + dx:r + dx + options.width]
            want += w * tap
            scale += abs(w) * tap
    border = cv2.BORDER_REPLICATE
    runs = [("cv2.sepFilter2D", lambda: cv2.sepFilter2D(image, cv2.CV_32F, rw, col,
                                                        borderType=border)),
            ("cv2.filter2D", lambda: cv2.filter2D(image, cv2.CV_32F, full, borderType=border))]
    print(f"opencv_peers.py: OpenCV {cv2.__version__}, {cv2.getNumThreads()} threads, "
          f"{options.filter} {2 * r + 1} x {2 * r + 1}, {options.height}x{options.width} float")
    failed = False
    pixels = options.height * options.width
    for name, call in runs:
        got = call()
        error = np.abs(got.astype(np.float64) - want) - 1e-5 * scale
        wrong = int(np.count_nonzero(error > 0))
        for _ in range(2):
            call()
        times = []
        for _ in range(options.reps):
            start = time.perf_counter()
            call()
            times.append(time.perf_counter() - start)
        times.sort()
        median = times[len(times) // 2]
        status = "PASSED" if wrong == 0 else f"FAILED ({wrong} pixels out of their bound)"
        failed = failed or wrong > 0
        print(f"{name} r={r}: median {median * 1e3:.3f} ms, min {times[0] * 1e3:.3f} ms, "
              f"{pixels / median / 1e6:.0f} MPixel/s, {8 * pixels / median / 1e9:.2f} GB/s "
              f"(8 bytes a pixel) {status}")
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
