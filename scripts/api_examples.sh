#!/usr/bin/env bash
# Regenerates docs/examples.md: starts the built server on a fresh database and records
# real requests with their real answers (long answers are cut to their first 100 lines).
# Usage: scripts/api_examples.sh [build/gpuplan]
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/start_server.sh
binary=${1:-build/gpuplan}
work=$(mktemp -d)
trap 'kill "${GPUPLAN_PID:-}" 2>/dev/null || true; rm -rf "$work"' EXIT
key=$("$binary" keys create --db "$work/gpuplan.db" --name platform --scope write 2>/dev/null)
start_gpuplan "$binary" "$work/log" --db "$work/gpuplan.db"
base="localhost:$GPUPLAN_PORT"
cat >"$work/azure.csv" <<'CSV'
InstanceType,AcceleratorName,AcceleratorCount,vCPUs,MemoryGiB,GpuInfo,Price,SpotPrice,Region,AvailabilityZone
Standard_NC24ads_A100_v4,A100-80GB,1,24,220,,3.673,1.4692,eastus,
Standard_ND96asr_v4,A100,8,96,900,,27.197,10.8788,eastus,
CSV
cat >"$work/bad.csv" <<'CSV'
InstanceType,AcceleratorName,AcceleratorCount,vCPUs,MemoryGiB,GpuInfo,Price,SpotPrice,Region,AvailabilityZone
Good_A,A100,8,96,900,,27,10,westeurope,
Bad_B,A100,8,96,900,,cheap,10,westeurope,
CSV
cat >"$work/spot.json" <<'JSON'
{"SpotPriceHistory": [
 {"AvailabilityZone": "us-east-1a", "InstanceType": "p4d.24xlarge", "ProductDescription": "Linux/UNIX", "SpotPrice": "9.100000", "Timestamp": "2025-06-01T10:00:00.000Z"},
 {"AvailabilityZone": "us-east-1a", "InstanceType": "p4d.24xlarge", "ProductDescription": "Linux/UNIX", "SpotPrice": "8.700000", "Timestamp": "2025-06-02T10:00:00.000Z"}]}
JSON

out=docs/examples.md
section() {  # title, then curl arguments (the URL uses $base)
  local title=$1
  shift
  echo
  echo "## $title"
  echo
  echo '```'
  local shown=("$@")
  printf '$ curl'
  for a in "${shown[@]}"; do
    a=${a//$base/localhost:8080}
    a=${a//$key/\$KEY}
    a=${a//$work\//}
    if [[ "$a" == *'$KEY'* ]]; then
      printf ' "%s"' "$a"
    elif [[ "$a" == *" "* || "$a" == *"{"* || "$a" == *"&"* || "$a" == *"?"* ]]; then
      printf " '%s'" "$a"
    else
      printf ' %s' "$a"
    fi
  done
  echo
  local body
  body=$(curl -s "$@" | sed "s/$base/localhost:8080/g")
  local pretty
  if pretty=$(echo "$body" | python3 -m json.tool 2>/dev/null); then
    printf '%s\n' "$pretty" | sed -n '1,100p'
    if [ "$(printf '%s\n' "$pretty" | wc -l)" -gt 100 ]; then echo "... (cut)"; fi
  else
    printf '%s\n' "$body" | sed -n '1,20p'
  fi
  echo '```'
}

bert='{"workload":"bert-large","dataset":{"samples":10000000,"epochs":3},"global_batch_size":256,"precision":"bf16"'
{
  echo "# API examples"
  echo
  echo "Real requests against a freshly seeded database, with their real answers"
  echo "(regenerate with \`scripts/api_examples.sh\`; the port is shown as 8080, the key as \$KEY)."
  section "Health" "$base/healthz"
  section "One GPU" "$base/api/v1/gpus/H100-80GB-SXM5"
  section "AWS 8-GPU A100 instances in us-east-1" "$base/api/v1/instances?cloud=aws&region=us-east-1&gpu=A100&min_gpu_count=8"
  section "GCP single A100 (host + GPU price)" "$base/api/v1/instances?cloud=gcp&region=us-central1&gpu=A100&max_gpu_count=1"
  section "Alibaba A10 in Hangzhou (CNY)" "$base/api/v1/instances?cloud=alibaba&region=cn-hangzhou&gpu=A10&limit=2"
  section "Invalid parameter" -i "$base/api/v1/instances?limit=0"
  section "Workload presets of a family" "$base/api/v1/workloads?family=cnn"
  section "One workload preset" "$base/api/v1/workloads/llama-2-70b"
  section "Q1: cheapest BERT-large fine-tune (10 M x 3 epochs) within 24 h on AWS, GCP or Alibaba" \
    "$base/api/v1/recommendations" --json "$bert"',"constraints":{"clouds":["aws","gcp","alibaba"],"deadline_hours":24},"objective":"cost","limit":3}'
  section "Q2: a 7 B decoder on 100 B tokens on 8xA100-80GB, 8xH100, 8xL4" \
    "$base/api/v1/compare" --json '{"workload":"llama-2-7b","dataset":{"tokens":1e11},"global_batch_size":512,"framework":"optimized","gpus":["A100-80GB-SXM4","H100-80GB-SXM5","L4"],"gpus_per_node":8}'
  section "Q2: the same on one p5.48xlarge, on demand vs spot" \
    "$base/api/v1/estimates/training" --json '{"workload":"llama-2-7b","dataset":{"tokens":1e11},"global_batch_size":512,"framework":"optimized","hardware":{"cloud":"aws","region":"us-east-1","instance_type":"p5.48xlarge"},"pricing":{"kind":"both"}}'
  section "Q3: serve a 7 B model at 50 requests/s, 200 in / 300 out tokens, under 2 s" \
    "$base/api/v1/recommendations" --json '{"task":"inference","workload":"llama-2-7b","input_tokens":200,"output_tokens":300,"target_requests_per_s":50,"latency_slo_ms":2000,"limit":3}'
  section "Q4: ViT-L at batch 64 in fp16 on a T4" \
    "$base/api/v1/estimates/training" --json '{"workload":"vit-l-16","dataset":{"samples":1281167},"global_batch_size":64,"micro_batch_size":64,"precision":"fp16","hardware":{"gpu":"T4"}}'
  section "Q5: import our own prices (a SkyPilot CSV of a cloud not in the seed)" \
    -X POST "$base/api/v1/catalog/import?format=skypilot&cloud=azure" -H "Authorization: Bearer $key" -H 'Content-Type: text/csv' --data-binary "@$work/azure.csv"
  section "Q5: recommend with those prices" \
    "$base/api/v1/recommendations" --json "$bert"',"constraints":{"clouds":["azure"]},"limit":2}'
  section "Q5: a malformed import is refused with its lines" \
    -X POST "$base/api/v1/catalog/import?format=skypilot&cloud=azure" -H "Authorization: Bearer $key" -H 'Content-Type: text/csv' --data-binary "@$work/bad.csv"
  section "Q6: import AWS spot price history" \
    -X POST "$base/api/v1/catalog/import?format=aws-spot-history" -H "Authorization: Bearer $key" --json "@$work/spot.json"
  section "Q6: spot price history of p4d.24xlarge in us-east-1" \
    "$base/api/v1/prices/spot-history?cloud=aws&instance_type=p4d.24xlarge&region=us-east-1&since=2025-01-01&limit=4"
  section "Q6: a 3-day job on spot with checkpoints every 30 minutes (with the spot history summary)" \
    "$base/api/v1/estimates/training" --json '{"workload":"llama-2-7b","dataset":{"tokens":6e9},"global_batch_size":512,"framework":"optimized","hardware":{"cloud":"aws","region":"us-east-1","instance_type":"p4d.24xlarge"},"pricing":{"kind":"both","checkpoint_interval_minutes":30,"interruption_rate_per_hour":0.1}}'
  section "Q7: every rentable GPU ranked by ResNet-50 images per dollar" \
    "$base/api/v1/compare?workload=resnet-50&samples=1281167&epochs=90"
  section "Q8: buy an RTX 4090 at its launch price, or rent the cheapest GPU that trains ResNet-50 as fast" \
    "$base/api/v1/estimates/ownership" --json '{"gpu":"RTX-4090","training":{"workload":"resnet-50","dataset":{"samples":1281167,"epochs":1},"global_batch_size":256}}'
  section "Inference estimate on one instance type" \
    "$base/api/v1/estimates/inference" --json '{"workload":"llama-3-8b","input_tokens":200,"output_tokens":300,"target_requests_per_s":50,"latency_slo_ms":2000,"hardware":{"cloud":"aws","region":"us-east-1","instance_type":"p5.48xlarge"}}'
  section "Batch of scenarios, one of them invalid" \
    "$base/api/v1/estimates/training:batch" --json '{"scenarios":[{"workload":"resnet-50","dataset":{"samples":1281167},"global_batch_size":256,"precision":"fp16","hardware":{"gpu":"T4","price_per_hour":0.526}},{"workload":"resnet-50","dataset":{"samples":1281167},"global_batch_size":0,"hardware":{"gpu":"T4"}}]}'
  section "A write without a key" -i -X POST "$base/api/v1/instances" --json '{"cloud":"x","instance_type":"y","gpu":"T4","gpu_count":1}'
  section "Invalid estimate fields" "$base/api/v1/estimates/training" --json '{"workload":"gpt-5","dataset":{"samples":1},"global_batch_size":8,"hardware":{"gpu":"A100-80GB-SXM4","nodes":0}}'
  section "Export (CSV, first lines)" "$base/api/v1/catalog/export?format=csv"
} >"$out"
echo "wrote $out"
