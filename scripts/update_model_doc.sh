#!/usr/bin/env bash
# Regenerates the measured parts of docs/model.md (fitted constants, error tables,
# predictions for GPUs outside the calibration data) from the built binary.
# Usage: scripts/update_model_doc.sh [build/gpuplan]
set -euo pipefail
cd "$(dirname "$0")/.."
bin=${1:-build/gpuplan}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
"$bin" calibrate --cross-validate --rows >"$tmp/calibrate.txt"

python3 - "$tmp/calibrate.txt" >"$tmp/constants.md" <<'PY'
import sys
text = open(sys.argv[1]).read()
block = text[text.index("constants:"):text.index("sigma")].splitlines()[1:]
prior = {"eta_fp32": 0.55, "eta_tf32": 0.40, "eta_16bit": 0.45, "eta_bw": 0.80,
         "transformer_traffic_passes": 8, "cnn_traffic_passes": 6, "cpu_step_overhead_s": 0.004,
         "cpu_layer_overhead_s": 0.001, "link_efficiency": 0.6, "dp_overlap": 0.7,
         "rnn_efficiency": 0.5, "fp32_traffic_factor": 1.5, "dp_sync_fraction": 0.03,
         "optimizer_bytes_per_param": 36}
meaning = {"eta_fp32": "share of FP32 CUDA-core peak reached by GEMM/conv",
           "eta_tf32": "share of TF32 tensor peak", "eta_16bit": "share of FP16/BF16 tensor peak",
           "eta_bw": "share of HBM bandwidth in elementwise kernels (bound 0.95)",
           "transformer_traffic_passes": "bytes moved per saved activation byte (transformers, RNNs)",
           "cnn_traffic_passes": "same for CNNs",
           "cpu_step_overhead_s": "framework time per micro-step",
           "cpu_layer_overhead_s": "launch time per layer per micro-step",
           "link_efficiency": "all-reduce bus bandwidth / per-direction link peak (bound 0.4-0.9)",
           "dp_overlap": "share of the gradient all-reduce hidden behind backward",
           "rnn_efficiency": "extra factor on RNN matmul efficiency",
           "fp32_traffic_factor": "extra traffic of fp32/tf32 runs (unfused kernels)",
           "dp_sync_fraction": "straggler time per doubling of data-parallel GPUs, x micro-step",
           "optimizer_bytes_per_param": "bytes per parameter of the (unfused) optimizer step"}
print("| constant | prior | fitted | meaning |")
print("| --- | --- | --- | --- |")
for line in block:
    name, value = line.split()
    print(f"| {name} | {prior[name]:g} | {float(value):.4g} | {meaning[name]} |")
PY

{
  echo "ResNet-50, batch 256, one GPU, ImageNet (1.28 M images) x 90 epochs:"
  echo
  echo "| GPU | precision | images/s | bottleneck | MFU | memory | hours |"
  echo "| --- | --- | --- | --- | --- | --- | --- |"
  for g in H100-80GB-SXM5 A100-80GB-SXM4 L40S RTX-4090 A10G L4 T4; do
    p=bf16; case $g in T4|A10G) p=fp16;; esac
    "$bin" estimate --workload resnet-50 --gpu $g --precision $p --samples 1281167 --epochs 90 \
      --global-batch 256 --optimizer sgd --json | python3 -c "import json,sys; d=json.load(sys.stdin); print('| $g | $p | %.0f | %s | %.2f | %s | %.1f |' % (d['throughput']['samples_per_s'], d['bottleneck'], d['mfu'], d['memory']['verdict'], d['time']['total_hours']))"
  done
  echo
  echo "Llama-2-7B, 8 GPUs of one node, 1 B tokens, global batch 256 x 4096, optimized stack:"
  echo
  echo "| GPUs | precision | tokens/s | bottleneck | MFU | memory | layout | hours |"
  echo "| --- | --- | --- | --- | --- | --- | --- | --- |"
  for g in H100-80GB-SXM5 A100-80GB-SXM4 L40S RTX-4090 A10G L4 T4; do
    p=bf16; case $g in T4|A10G) p=fp16;; esac
    "$bin" estimate --workload llama-2-7b --gpu $g --gpus 8 --precision $p --tokens 1e9 \
      --global-batch 256 --framework optimized --json | python3 -c "import json,sys; d=json.load(sys.stdin); l=d['layout']; print('| 8x $g | $p | %.0f | %s | %.2f | %s | tp%d pp%d dp%d ZeRO-%d | %.1f |' % (d['throughput']['tokens_per_s'], d['bottleneck'], d['mfu'], d['memory']['verdict'], l['tensor_parallel'], l['pipeline_parallel'], l['data_parallel'], l['zero_stage'], d['time']['total_hours']))"
  done
} >"$tmp/unseen.md"

{ echo '```'; cat "$tmp/calibrate.txt"; echo '```'; } >"$tmp/calibrate.md"

python3 - "$tmp" <<'PY'
import re, sys
d = sys.argv[1]
doc = open("docs/model.md").read()
for key, file in (("constants", "constants.md"), ("calibrate", "calibrate.md"), ("unseen", "unseen.md")):
    body = open(f"{d}/{file}").read().rstrip()
    doc = re.sub(rf"<!-- {key}:begin -->.*?<!-- {key}:end -->",
                 lambda m: f"<!-- {key}:begin -->\n{body}\n<!-- {key}:end -->", doc, flags=re.S)
open("docs/model.md", "w").write(doc)
PY
echo "updated docs/model.md"
