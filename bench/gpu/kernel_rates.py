"""Measures, on a lent GPU, the rates the performance model takes from specs: device memory
bandwidth, BF16 and FP8 matrix-product rates at LLM training shapes, and the time of an
LLM decode step (the weight GEMMs of a 7 B decoder, no attention) at several batch sizes.

Run on the device machine (PyTorch there): python3 bench/gpu/kernel_rates.py OUT_DIR
Writes OUT_DIR/kernel_rates.csv and prints the same table. Method (the workplace's device
guide): random inputs, warm-up, CUDA events around each region, median of the repeats;
decode steps are also timed as a captured CUDA graph (no launch gaps). Results are kept in
db/seed/lent_gpu/ with the card and date; nothing in the build reads them.
"""
import csv
import os
import sys

import torch


def median_seconds(fn, warmup=5, repeats=25):
    for _ in range(warmup):
        fn()
    torch.cuda.synchronize()
    times = []
    for _ in range(repeats):
        start = torch.cuda.Event(enable_timing=True)
        end = torch.cuda.Event(enable_timing=True)
        start.record()
        fn()
        end.record()
        torch.cuda.synchronize()
        times.append(start.elapsed_time(end) / 1e3)
    times.sort()
    return times[len(times) // 2]


def main(out_dir):
    torch.manual_seed(0)
    dev = torch.device("cuda")
    props = torch.cuda.get_device_properties(dev)
    card = props.name
    rows = []

    def add(kind, shape, seconds, flops=0.0, bytes_moved=0.0, note=""):
        rows.append({
            "card": card, "kind": kind, "shape": shape, "ms": round(seconds * 1e3, 4),
            "tflops": round(flops / seconds / 1e12, 1) if flops else "",
            "gbps": round(bytes_moved / seconds / 1e9, 1) if bytes_moved else "",
            "note": note})

    # Device-to-device copy: bytes read plus bytes written.
    src = torch.randn(2**28, device=dev)  # 1 GiB of float32
    dst = torch.empty_like(src)
    t = median_seconds(lambda: dst.copy_(src))
    add("copy", "1 GiB float32", t, bytes_moved=2 * src.numel() * 4)
    del src, dst

    # Matrix products at training shapes of a 7 B decoder (tokens x out x in).
    shapes = [(8192, 8192, 8192), (16384, 12288, 4096), (16384, 4096, 4096),
              (16384, 22016, 4096), (16384, 4096, 11008), (4096, 4096, 4096), (2048, 4096, 4096)]
    fp8 = getattr(torch, "float8_e4m3fn", None)
    for m, n, k in shapes:
        a = torch.randn(m, k, device=dev, dtype=torch.bfloat16)
        b = torch.randn(n, k, device=dev, dtype=torch.bfloat16)
        flops = 2.0 * m * n * k
        t = median_seconds(lambda: a @ b.t())
        add("gemm_bf16", f"{m}x{n}x{k}", t, flops=flops)
        if fp8 is not None and hasattr(torch, "_scaled_mm"):
            a8 = (a / 4).to(fp8)
            b8 = (b / 4).to(fp8)
            one = torch.tensor(1.0, device=dev)
            try:
                t = median_seconds(lambda: torch._scaled_mm(a8, b8.t(), scale_a=one, scale_b=one,
                                                            out_dtype=torch.bfloat16))
                add("gemm_fp8_e4m3", f"{m}x{n}x{k}", t, flops=flops, note="per-tensor scales")
            except Exception as e:  # an unsupported layout or build: say so, keep going
                add("gemm_fp8_e4m3", f"{m}x{n}x{k}", float("nan"), note=f"failed: {e}"[:120])
        del a, b

    # Decode step of a 7 B decoder (Llama-2-7B shapes): per layer QKV 12288x4096, output
    # 4096x4096, gate+up 22016x4096, down 4096x11008; 32 layers, bf16 weights (13 GB).
    layers = 32
    weights = []
    for _ in range(layers):
        weights.append([torch.randn(o, i, device=dev, dtype=torch.bfloat16) * 0.02
                        for o, i in ((12288, 4096), (4096, 4096), (22016, 4096), (4096, 11008))])
    weight_bytes = sum(w.numel() * 2 for layer in weights for w in layer)
    for batch in (1, 8, 32, 128, 512, 2048):
        x4096 = torch.randn(batch, 4096, device=dev, dtype=torch.bfloat16)
        x11008 = torch.randn(batch, 11008, device=dev, dtype=torch.bfloat16)

        def step():
            for qkv, o, up, down in weights:
                x4096 @ qkv.t()
                x4096 @ o.t()
                x4096 @ up.t()
                x11008 @ down.t()

        flops = 2.0 * batch * weight_bytes / 2
        t = median_seconds(step, warmup=3, repeats=15)
        add("decode_weights_eager", f"batch {batch}", t, flops=flops, bytes_moved=weight_bytes)
        graph = torch.cuda.CUDAGraph()
        stream = torch.cuda.Stream()
        stream.wait_stream(torch.cuda.current_stream())
        with torch.cuda.stream(stream):
            step()
            with torch.cuda.graph(graph):
                step()
        torch.cuda.current_stream().wait_stream(stream)
        t = median_seconds(graph.replay, warmup=3, repeats=15)
        add("decode_weights_graph", f"batch {batch}", t, flops=flops, bytes_moved=weight_bytes)

    os.makedirs(out_dir, exist_ok=True)
    path = os.path.join(out_dir, "kernel_rates.csv")
    with open(path, "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=list(rows[0].keys()))
        w.writeheader()
        w.writerows(rows)
    print(f"{card}, torch {torch.__version__}, {props.multi_processor_count} SMs")
    for r in rows:
        print(f"{r['kind']:22} {r['shape']:22} {r['ms']:>10} ms {r['tflops']:>8} TFLOP/s "
              f"{r['gbps']:>8} GB/s {r['note']}")


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else ".")
