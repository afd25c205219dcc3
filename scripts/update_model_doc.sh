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
import re, sys
text = open(sys.argv[1]).read()
block = text[text.index("constants (fitted"):text.index("constants at a bound")].splitlines()[1:]
meaning = {
    "eta_16bit": "share of the FP16/BF16 tensor peak reached by large GEMMs/convs",
    "eta_tf32": "share of the TF32 tensor peak",
    "eta_fp32": "share of the FP32 CUDA-core peak (fp32 GEMMs/convs)",
    "eta_bw": "share of peak DRAM bandwidth reached by elementwise kernels",
    "transformer_traffic_passes": "DRAM passes over a transformer's activation elements per step",
    "cnn_traffic_passes": "DRAM passes over a CNN's model-zoo activations per step",
    "step_time_cv": "step-time variation between replicas (straggler term)",
    "sm_bytes_per_clock": "bytes per SM per clock elementwise kernels sustain (SM-side bandwidth limit)",
    "variable_length_cv": "added step-time variation of variable-length batches",
    "eta_depthwise": "share of the FP32 CUDA-core peak reached by depthwise/grouped convs",
    "eta_attention": "share of the portable 16-bit tensor rate reached by fused attention (FlashAttention-2 class, forward and backward)",
    "eta_fp8_vs_16bit": "FP8 GEMMs' share of the FP8 peak relative to eta_16bit",
}
print("| constant | prior | bounds | fitted | meaning |")
print("| --- | --- | --- | --- | --- |")
for line in block:
    m = re.match(r"\s*(\S+)\s+(\S+)\s+prior\s+(\S+)\s+\[(.*?)\](.*)", line)
    name, value, prior, bounds, flag = m.groups()
    note = " **at bound**" if "AT BOUND" in flag else ""
    print(f"| {name} | {float(prior):g} | [{bounds}] | {float(value):.4g}{note} | {meaning[name]} |")
PY

{
  echo "ResNet-50, batch 256, one GPU, ImageNet (1.28 M images) x 90 epochs:"
  echo
  echo "| GPU | precision | images/s | bottleneck | MFU | memory | hours |"
  echo "| --- | --- | --- | --- | --- | --- | --- |"
  for g in H100-80GB-SXM5 A100-80GB-SXM4 L40S RTX-4090 A10G L4 T4; do
    "$bin" estimate --workload resnet-50 --gpu $g --samples 1281167 --epochs 90 \
      --global-batch 256 --optimizer sgd --framework eager --json | python3 -c "import json,sys; d=json.load(sys.stdin); f=lambda fmt, v: '-' if v is None else fmt % v; print('| $g | %s | %s | %s | %s | %s | %s |' % (d['precision'], f('%.0f', d['throughput']['samples_per_s']), d['bottleneck'], f('%.2f', d['mfu']), d['memory']['verdict'], f('%.1f', d['time']['total_hours'])))"
  done
  echo
  echo "Llama-2-7B, 8 GPUs of one node, 1 B tokens, global batch 256 x 4096, optimized stack:"
  echo
  echo "| GPUs | precision | tokens/s | bottleneck | MFU | memory | layout | hours |"
  echo "| --- | --- | --- | --- | --- | --- | --- | --- |"
  for g in H100-80GB-SXM5 A100-80GB-SXM4 L40S RTX-4090 A10G L4 T4; do
    "$bin" estimate --workload llama-2-7b --gpu $g --gpus 8 --tokens 1e9 \
      --global-batch 256 --framework optimized --json | python3 -c "import json,sys; d=json.load(sys.stdin); l=d['layout']; f=lambda fmt, v: '-' if v is None else fmt % v; print('| 8x $g | %s | %s | %s | %s | %s | tp%d pp%d dp%d ZeRO-%d | %s |' % (d['precision'], f('%.0f', d['throughput']['tokens_per_s']), d['bottleneck'] if d['feasibility']['feasible'] else '-', f('%.2f', d['mfu']), d['memory']['verdict'], l['tensor_parallel'], l['pipeline_parallel'], l['data_parallel'], l['zero_stage'], f('%.1f', d['time']['total_hours'])))"
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
