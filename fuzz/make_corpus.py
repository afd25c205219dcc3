#!/usr/bin/env python3
"""Writes the seed corpora of the fuzz targets into fuzz/corpus/<target>/.

The seeds are small, realistic inputs taken from the tests and db/seed/: run this again
after changing it (the files are checked in; the fuzzers never write into fuzz/corpus/).
Cursors are made exactly as api::EncodePosition makes them (FNV-1a fingerprint, nlohmann
dump with sorted keys, lower-case hex)."""
import json
import os
import struct

HERE = os.path.dirname(os.path.abspath(__file__))
CORPUS = os.path.join(HERE, "corpus")
SEED = os.path.join(HERE, "..", "db", "seed")


def dump(value):
    return json.dumps(value, separators=(",", ":"), sort_keys=True, ensure_ascii=False)


def write(target, name, data):
    d = os.path.join(CORPUS, target)
    os.makedirs(d, exist_ok=True)
    if isinstance(data, str):
        data = data.encode("utf-8")
    with open(os.path.join(d, name), "wb") as f:
        f.write(data)


def fnv(text):
    h = 1469598103934665603
    for b in text.encode("utf-8") if isinstance(text, str) else text:
        h ^= b
        h = (h * 1099511628211) % (1 << 64)
    return "%016x" % h


def cursor(value, keys, fingerprint):
    return dump({"q": fingerprint, "k": keys, "v": value}).encode("utf-8").hex()


# --- estimates -------------------------------------------------------------------------
training = {"workload": "bert-large", "dataset": {"samples": 10000000, "epochs": 3},
            "global_batch_size": 256, "precision": "bf16",
            "hardware": {"gpu": "A100-80GB-SXM4", "gpus_per_node": 8, "nodes": 1}}
write("fuzz_training_request", "explicit_gpu.json", dump(training))
write("fuzz_training_request", "catalog_instance.json", dump({
    "workload": "llama-2-7b", "dataset": {"tokens": 1e11}, "global_batch_size": 512,
    "framework": "optimized",
    "hardware": {"cloud": "aws", "region": "us-east-1", "instance_type": "p5.48xlarge"},
    "pricing": {"kind": "both", "interruption_rate_per_hour": 0.05,
                "checkpoint_interval_minutes": 30}}))
write("fuzz_training_request", "custom_shape.json", dump({
    "workload": {"family": "decoder", "params": 1.3e9, "layers": 24, "hidden": 2048,
                 "heads": 16, "kv_heads": 16, "ffn": 8192, "vocab": 50257, "seq_len": 2048,
                 "gated_mlp": False, "tied_embeddings": True},
    "dataset": {"tokens": 2.6e10}, "global_batch_size": 512, "micro_batch_size": 8,
    "precision": "fp16", "optimizer": "adamw", "activation_checkpointing": "selective",
    "zero_stage": 2, "tensor_parallel": 2, "pipeline_parallel": 1,
    "hardware": {"gpu": "H100-80GB-SXM5", "gpus_per_node": 8, "nodes": 2,
                 "interconnect": "nvswitch", "network_gbps": 400,
                 "price_per_hour": 98.3, "spot_price_per_hour": 40, "price_currency": "USD"},
    "currency": "EUR"}))
write("fuzz_training_request", "preset_override_moe.json", dump({
    "workload": {"preset": "mixtral-8x7b", "seq_len": 4096, "active_experts": 2},
    "dataset": {"tokens": 1e10, "epochs": 1}, "global_batch_size": 1024,
    "hardware": {"gpu": "MI300X", "gpus_per_node": 8, "nodes": 4}}))
write("fuzz_training_request", "vit_t4.json", dump({
    "workload": "vit-l-16", "dataset": {"samples": 1281167}, "global_batch_size": 64,
    "micro_batch_size": 64, "precision": "fp16", "hardware": {"gpu": "T4"}}))
write("fuzz_training_request", "batch.json", dump({"scenarios": [
    training, {"workload": "resnet-50", "dataset": {"samples": 1281167, "epochs": 90},
               "global_batch_size": 1024, "hardware": {"gpu": "L4", "gpus_per_node": 4}},
    "not an object"]}))
write("fuzz_training_request", "invalid.json", dump({
    "workload": "nope", "dataset": {"samples": -1}, "global_batch_size": 0,
    "precision": "fp4", "hardware": {"gpu": "A100-80GB-SXM4", "nodes": 99999}, "extra": 1}))

inference = {"workload": "llama-2-7b", "precision": "bf16", "input_tokens": 200,
             "output_tokens": 300, "target_requests_per_s": 50, "latency_slo_ms": 2000,
             "hardware": {"gpu": "A100-80GB-SXM4", "gpus_per_node": 8}}
write("fuzz_inference_request", "explicit_gpu.json", dump(inference))
write("fuzz_inference_request", "catalog_instance.json", dump({
    "workload": "llama-2-70b", "precision": "fp8", "input_tokens": 1000, "output_tokens": 500,
    "target_tokens_per_s": 20000, "tensor_parallel": 8,
    "hardware": {"cloud": "aws", "region": "us-east-1", "instance_type": "p5.48xlarge"},
    "pricing": {"kind": "spot"}, "currency": "CNY"}))
write("fuzz_inference_request", "cnn_samples.json", dump({
    "workload": "resnet-50", "precision": "int8", "target_samples_per_s": 5000,
    "hardware": {"gpu": "T4", "price_per_hour": 0.53}}))
write("fuzz_inference_request", "invalid.json", dump({
    "workload": {"family": "decoder"}, "target_requests_per_s": 1, "target_tokens_per_s": 2,
    "output_tokens": 0, "hardware": {}}))

# --- recommendations and comparisons ---------------------------------------------------
write("fuzz_recommendation_request", "training_deadline.json", dump({
    "workload": "bert-large", "dataset": {"samples": 10000000, "epochs": 3},
    "global_batch_size": 256, "precision": "bf16", "objective": "cost", "limit": 20,
    "constraints": {"clouds": ["aws", "gcp", "alibaba"], "deadline_hours": 24, "max_nodes": 4}}))
write("fuzz_recommendation_request", "inference_slo.json", dump({
    "task": "inference", "workload": "llama-2-7b", "precision": "bf16", "input_tokens": 200,
    "output_tokens": 300, "target_requests_per_s": 50, "latency_slo_ms": 2000,
    "objective": "cost", "constraints": {"price_kinds": ["ondemand"], "gpus": ["A100", "H100"]}}))
write("fuzz_recommendation_request", "balanced_budget.json", dump({
    "workload": "llama-2-70b", "dataset": {"tokens": 2e9}, "global_batch_size": 512,
    "objective": "balanced", "constraints": {"budget": 100000, "min_gpu_memory_gb": 80,
                                             "regions": ["us-east-1"], "max_nodes": 8}}))
write("fuzz_recommendation_request", "compare.json", dump({
    "workload": "llama-2-7b", "dataset": {"tokens": 1e11}, "global_batch_size": 512,
    "precision": "bf16", "framework": "optimized",
    "gpus": ["A100-80GB-SXM4", "H100-80GB-SXM5", "L4"], "gpus_per_node": 8}))
write("fuzz_recommendation_request", "compare_all.json", dump({
    "workload": "resnet-50", "dataset": {"samples": 1281167, "epochs": 1},
    "global_batch_size": 256, "currency": "EUR"}))

# --- catalog write bodies --------------------------------------------------------------
gpu = {"id": "TEST-GPU-1", "name": "TEST-GPU-1", "vendor": "NVIDIA", "memory_gb": 96,
       "memory_bw_gbps": 4000, "bf16_tflops": 800, "fp16_tflops": 800, "fp32_tflops": 60,
       "nvlink_bw_gbps": 900, "form_factor": "SXM", "source": "test"}
write("fuzz_catalog_json", "gpu.json", dump(gpu))
write("fuzz_catalog_json", "gpu_path_id.json", dump(dict(gpu, id="A100-80GB-SXM4",
                                                         release_year=2021, pcie_gen=4,
                                                         architecture="Ampere")))
write("fuzz_catalog_json", "instance.json", dump({
    "cloud": "lambda", "instance_type": "gpu_8x_h100_sxm5", "gpu": "H100-80GB-SXM5",
    "gpu_count": 8, "vcpus": 208, "memory_gib": 1800, "interconnect": "nvswitch",
    "interconnect_bw_gbps": 900, "network_gbps": 0, "arch": "x86_64",
    "accelerator_name": "H100", "source": "lambda pricing page"}))
write("fuzz_catalog_json", "instance_path.json", dump({
    "cloud": "aws", "instance_type": "p4d.24xlarge", "gpu": "A100-40GB-SXM4", "gpu_count": 8,
    "host_instance_type": "n1-standard-8"}))
write("fuzz_catalog_json", "prices.json", dump({"prices": [
    {"cloud": "lambda", "instance_type": "gpu_8x_h100_sxm5", "region": "us-east-1",
     "kind": "ondemand", "price_per_hour": 23.92, "currency": "USD",
     "observed_at": "2026-10-01", "source": "test"},
    {"cloud": "aws", "instance_type": "p4d.24xlarge", "region": "us-east-1",
     "zone": "us-east-1a", "kind": "spot", "price_per_hour": 9.1, "currency": "USD",
     "observed_at": "2025-06-01T10:00:00.000Z"}]}))
write("fuzz_catalog_json", "fx_rate.json", dump({"units_per_usd": 150.0, "as_of": "2026-11-01",
                                                 "source": "test"}))
write("fuzz_catalog_json", "invalid.json", dump({
    "id": "bad id/?", "vendor": "", "memory_gb": -1, "gpu_count": 0, "prices": [],
    "observed_at": "2099-13-40", "units_per_usd": 0, "name": "\u0007bell"}))

# --- query strings ---------------------------------------------------------------------
instances_fp = fnv("cloud=aws&gpu=A100&sort=price_per_gpu&")
queries = {
    "instances.txt": "cloud=aws&region=us-east-1&gpu=A100&min_gpu_count=1&max_gpu_count=8"
                     "&min_gpu_memory_gb=40&max_price_per_hour=50&price_kind=spot&currency=EUR"
                     "&sort=price_per_gpu&order=desc&limit=5",
    "instances_cursor.txt": "cloud=aws&gpu=A100&sort=price_per_gpu&limit=2&cursor="
                            + cursor(4.096, ["aws", "us-east-1", "p4d.24xlarge"], instances_fp),
    "spot_history.txt": "cloud=aws&instance_type=p4d.24xlarge&region=us-east-1&zone=us-east-1a"
                        "&since=2025-01-01&until=2025-12-31&limit=2",
    "spot_history_cursor.txt": "cloud=aws&instance_type=p4d.24xlarge&limit=1&cursor="
                               + cursor(None, ["2025-06-01T10:00:00.000Z", "us-east-1a",
                                               "us-east-1"],
                                        fnv("aws|p4d.24xlarge||||")),
    "generic.txt": "name=x%20y&limit=10&min=-5&ratio=1.5e0&kind=spot&cloud=fail",
    "errors.txt": "limit=0&limit=1&unknown=%FF%00&ratio=nan&sort=up&currency=usd",
}
for i, (name, q) in enumerate(sorted(queries.items())):
    write("fuzz_query_params", name, bytes([0]) + q.encode())
write("fuzz_query_params", "raw_split.txt", b"\x01cloud=a\xffws&region=&limit=9999999999999999999")

# --- admission -------------------------------------------------------------------------
adm = {
    "post_json.txt": "POST /api/v1/estimates/training\nContent-Type: application/json\n"
                     "Content-Length: 2\n\n{}",
    "get_query.txt": "GET /api/v1/instances?cloud=aws&limit=5\nX-Request-Id: abc-123\n\n",
    "import_large.txt": "POST /api/v1/catalog/import?format=skypilot&cloud=aws\n"
                        "Content-Length: 20971521\nAuthorization: Bearer gpk_abc\n\n",
    "batch.txt": "POST /api/v1/estimates/training:batch\nContent-Length: 8388608\n\n",
    "chunked.txt": "PUT /api/v1/gpus/X\nTransfer-Encoding: chunked\n\n",
    "gzip.txt": "POST /api/v1/prices\nContent-Encoding: gzip\nContent-Length: 10\n\n",
    "bad_path.txt": "GET /api/v1/gpus/%FF%00\n\n",
    "get_with_body.txt": "GET /healthz\nContent-Length: 5\n\nhello",
    "no_length.txt": "DELETE /api/v1/gpus/TEST\nauthorization: bearer  token\n\n",
    "two_lengths.txt": "POST /api/v1/compare\nContent-Length: 1\nContent-Length: 2\n\n",
}
for name, text in adm.items():
    write("fuzz_admission", name, text)

# --- cursors ---------------------------------------------------------------------------
def cursor_seed(flags, value, keys):
    rest = b"\xff".join(k.encode() for k in keys)
    return bytes([flags]) + struct.pack("<d", value) + rest

write("fuzz_cursor", "offer_keys.bin", cursor_seed(0x83, 4.096, ["aws", "us-east-1", "p4d.24xlarge"]))
write("fuzz_cursor", "spot_keys.bin", cursor_seed(0x03, 0.0,
                                                  ["2025-06-01T10:00:00.000Z", "us-east-1a", "us-east-1"]))
write("fuzz_cursor", "one_key.bin", cursor_seed(0x81, -1e300, ["é√🙂"]))
fp = fnv("")
for name, c in {"encoded_offer.txt": cursor(12.5, ["aws", "us-east-1", "p5.48xlarge"], fp),
                "encoded_null.txt": cursor(None, ["a", "b", "c"], fp),
                "encoded_one.txt": cursor(3, ["x"], fp),
                "encoded_other_query.txt": cursor(1, ["a", "b", "c"], fnv("cloud=gcp&"))}.items():
    write("fuzz_cursor", name, b"\x00" + c.encode())
write("fuzz_cursor", "not_hex.txt", b"\x00zz" + b"0" * 8)

# --- CSV importers ---------------------------------------------------------------------
def seed_lines(name, n, pred=lambda line: True):
    with open(os.path.join(SEED, name), encoding="utf-8") as f:
        lines = f.read().splitlines()
    body = [l for l in lines[1:] if pred(l)][:n]
    return "\n".join([lines[0]] + body) + "\n"

aws = seed_lines("aws_vms_gpu.csv", 2, lambda l: l.startswith("p4d.24xlarge"))
gcp_hosts = seed_lines("gcp_vms_gpu.csv", 2, lambda l: l.startswith("a2-highgpu-1g"))
gcp_bundles = seed_lines("gcp_vms_gpu.csv", 2, lambda l: l.startswith(",,,A100"))
flat = seed_lines("alibaba_gpu_instances.csv", 2)
write("fuzz_skypilot_import", "aws_skypilot.csv", aws)
write("fuzz_skypilot_import", "gcp_hosts.csv", gcp_hosts)
write("fuzz_skypilot_import", "gcp_bundle.csv", gcp_bundles)
write("fuzz_skypilot_import", "flat_alibaba.csv", flat)
write("fuzz_skypilot_import", "quoted_crlf.csv",
      "InstanceType,AcceleratorName,AcceleratorCount,Price,SpotPrice,Region,AvailabilityZone\r\n"
      "\"Standard_ND96asr_v4\",\"A100\",\"8.0\",\"27.197\",\"\",eastus,\r\n"
      "\"a \"\"quoted\"\" one\",V100,0.5,n/a,1e400,westus,westus-1\r\n")

# --- import bodies (byte 0: format % 4, cloud (b / 4) % 4) ------------------------------
SKYPILOT_AWS, SKYPILOT_GCP, AWS_SPOT, GPUPLAN, AWS_ADVISOR = 0, 4, 1, 2, 3
write("fuzz_import", "skypilot_aws.bin", bytes([SKYPILOT_AWS]) + aws.encode())
write("fuzz_import", "skypilot_gcp.bin", bytes([SKYPILOT_GCP]) + (gcp_hosts + gcp_bundles.split("\n", 1)[1]).encode())
spot = {"SpotPriceHistory": [
    {"AvailabilityZone": "us-east-1a", "InstanceType": "p4d.24xlarge",
     "ProductDescription": "Linux/UNIX", "SpotPrice": "9.100000",
     "Timestamp": "2025-06-01T10:00:00.000Z"},
    {"AvailabilityZone": "us-west-2-lax-1a", "InstanceType": "p5.48xlarge",
     "ProductDescription": "Linux/UNIX", "SpotPrice": "38.2",
     "Timestamp": "2025-06-02T10:00:00+00:00"},
    {"AvailabilityZone": "us-gov-west-1b", "InstanceType": "p4d.24xlarge",
     "ProductDescription": "Windows", "SpotPrice": "12.0", "Timestamp": "2025-06-02T10:00:00Z"},
    {"AvailabilityZone": "us-east-1c", "InstanceType": "p9.unknown",
     "ProductDescription": "Linux/UNIX", "SpotPrice": "1", "Timestamp": "2025-06-03"}]}
write("fuzz_import", "aws_spot_history.bin", bytes([AWS_SPOT]) + dump(spot).encode())
native = {"format": "gpuplan", "version": 1, "exported_at": "2026-11-01T00:00:00Z",
          "gpus": [dict(gpu, id="TEST-GPU-9", architecture="Hopper", release_year=2024,
                        memory_type="HBM3", pcie_gen=5)],
          "clouds": [{"id": "lambda", "name": "Lambda", "default_currency": "USD"}],
          "regions": [{"cloud": "lambda", "id": "us-east-1", "display_name": "Virginia",
                       "country": "US", "continent": "North America"}],
          "fx_rates": [{"currency": "JPY", "units_per_usd": 150.0, "as_of": "2026-11-01",
                        "source": "test"}],
          "instance_types": [{"cloud": "lambda", "instance_type": "gpu_1x_test", "gpu": "TEST-GPU-9",
                              "gpu_count": 1, "vcpus": 26, "memory_gib": 200,
                              "interconnect": "none", "interconnect_bw_gbps": 0,
                              "network_gbps": None, "arch": "x86_64", "host_instance_type": "",
                              "accelerator_name": "", "source": "test"},
                             {"cloud": "lambda", "instance_type": "gpu_1x_unknown",
                              "gpu": "NOT-A-GPU", "gpu_count": 1}],
          "prices": [{"cloud": "lambda", "instance_type": "gpu_1x_test", "region": "us-east-1",
                      "zone": "", "kind": "ondemand", "price_per_hour": 2.49, "currency": "USD",
                      "observed_at": "2026-10-01", "source": "test"},
                     {"cloud": "lambda", "instance_type": "gpu_1x_test", "region": "us-east-1",
                      "kind": "spot", "price_per_hour": 300, "currency": "JPY",
                      "observed_at": "2026-10-01T00:00:00Z"},
                     {"cloud": "lambda", "instance_type": "gpu_1x_test", "region": "us-east-1",
                      "kind": "ondemand", "price_per_hour": 1, "currency": "XXX"}]}
write("fuzz_import", "gpuplan_native.bin", bytes([GPUPLAN]) + dump(native).encode())
advisor = {"ranges": [{"index": 0, "label": "<5%", "dots": 0, "max": 5},
                      {"index": 4, "label": ">20%", "dots": 4, "max": 100}],
           "instance_types": {"p4d.24xlarge": {"emr": True, "cores": 96, "ram_gb": 1152}},
           "spot_advisor": {"us-east-1": {"Linux": {"p4d.24xlarge": {"s": 70, "r": 4},
                                                    "m9.unknown": {"s": 10, "r": 0},
                                                    "g5.48xlarge": {"s": 60, "r": 9}},
                                          "Windows": {"p4d.24xlarge": {"s": 10, "r": 0}}}}}
write("fuzz_import", "aws_spot_advisor.bin", bytes([AWS_ADVISOR]) + dump(advisor).encode())
write("fuzz_import", "gpuplan_bad.bin", bytes([GPUPLAN]) + b'{"format":"gpuplan","gpus":{},"prices":[1,[],{"kind":"x"}]}')

# --- field rules (byte 0: Printable's max_bytes) ---------------------------------------
for i, value in enumerate([
        "2026-11-01", "2026-11-01T12:00:00Z", "2025-06-01T10:00:00.000Z",
        "2024-02-29T23:59:60+05:30", "2023-02-29", "1999-12-31T23:59:59-0800",
        "p4d.24xlarge", "n1-standard-8+1xT4", "us-east-1", "-bad-name", "USD", "usd",
        "9.100000", "+1e7", "1e400", "8.0", " 42 ", "n/a", "caf\u00e9 \u2603",
        "tab\there\\back", "\x7f\x00\x1b[31m"]):
    write("fuzz_field_rules", "value_%02d.bin" % i, bytes([40 if i % 2 else 200]) + value.encode())
write("fuzz_field_rules", "invalid_utf8.bin", b"\x05\xc3\x28\xed\xa0\x80\xf4\x90\x80\x80\xe2\x82")

# --- plan exports (text fields split at 0x1f, then flags, doubles, ints) ----------------
def plan_seed(texts, flags, doubles, ints):
    data = b"\x1f".join(t.encode("utf-8") if isinstance(t, str) else t for t in texts) + b"\x1f"
    data += bytes([flags]) + b"".join(struct.pack("<d", x) for x in doubles)
    return data + b"".join(struct.pack("<i", x) for x in ints)


plan_texts = ["gpuplan-bert-large", "bert-large", "BERT-large", "aws", "us-east-1", "p4d.24xlarge",
              "p4d.24xlarge", "A100-40GB-SXM4", "A100 40GB SXM4", "NVIDIA", "A100", "ondemand",
              "USD", "bf16", "explicit hardware", "warning: x"]
write("fuzz_plan_export", "training_ondemand.bin",
      plan_seed(plan_texts, 0, [0, 12.5, 3.2, 0], [8, 2, 0, 0, 256, 8]))
write("fuzz_plan_export", "training_fallback.bin",
      plan_seed(plan_texts[:11] + ["spot_with_fallback"] + plan_texts[12:], 2 | 4 | 8 | 16,
                [42.25, 31.5, 48, 900.0, 30, 35], [8, 4, 0, 0, 1024, 4]))
write("fuzz_plan_export", "inference_spot.bin",
      plan_seed(["gpuplan-llama-2-7b", "llama-2-7b", "Llama-2-7B", "gcp", "us-central1",
                 "g2-standard-8", "g2-standard-8", "L4", "L4", "NVIDIA", "L4", "spot", "USD",
                 "fp16", "", ""], 1 | 2 | 16, [0, 1.2, 0, 0], [1, 3, 3, 1, 0, 0]))
# Issue 22: line breaks of YAML 1.1 (U+2028, U+2029, U+0085), controls, YAML 1.1 lookalikes
# (off, 012, 0x10, true), and figures that are not finite.
write("fuzz_plan_export", "hostile_text.bin",
      plan_seed(["x\u2028apiVersion: v1\u2028---\u2028#", "off", "x\u0085kind: Secret", "true",
                 "012", "0x10", "0x10", "H100\u2029a: b", "\x00\x1b[2J", "NVIDIA\u2028x",
                 "A100:\x0b", "spot", "US\u2028D", "bf16", "note\u2028y: z", "\x7f"],
                2 | 8 | 16, [float("inf"), float("nan"), 1e308, float("inf"), float("nan")],
                [2147483647, -2147483648, 0, -1, 0, 0]))


# --- dictionaries (fuzz/dict/<target>.dict) ---------------------------------------------
import re

ROOT = os.path.join(HERE, "..")
DICT = os.path.join(HERE, "dict")
os.makedirs(DICT, exist_ok=True)


def words_from_sources(paths):
    words = set()
    for path in paths:
        with open(os.path.join(ROOT, path), encoding="utf-8") as f:
            text = f.read()
        for m in re.finditer(r'\b(?:String|Number|Integer|Bool|Choice|Object|Strings|Raw|Has|'
                             r'Check|Fail|contains|text)\(\s*"([A-Za-z0-9_:.-]+)"', text):
            words.add(m.group(1))
        for m in re.finditer(r'Choice\([^{]*\{([^}]*)\}', text):
            words.update(re.findall(r'"([^"\\]+)"', m.group(1)))
    return words


def write_dict(target, tokens):
    lines = []
    for tok in sorted(set(tokens)):
        escaped = "".join(c if 0x20 <= ord(c) < 0x7f and c not in '"\\' else "\\x%02x" % ord(c)
                          for c in tok)
        lines.append('"%s"' % escaped)
    with open(os.path.join(DICT, target + ".dict"), "w", encoding="ascii") as f:
        f.write("# generated by fuzz/make_corpus.py\n" + "\n".join(lines) + "\n")


json_syntax = ["{", "}", "[", "]", ":", ",", '""', "null", "true", "false", "-0", "1e308",
               "1e-308", "0.5", "\\u0000", "\\ud800", "\\\"", "1e400", "-1"]
api_words = words_from_sources(["api/plan_request.cc", "api/recommender.cc",
                                "api/catalog_io.cc", "api/catalog_write_routes.cc",
                                "api/estimate_routes.cc"])
with open(os.path.join(ROOT, "model", "workload_presets.cc"), encoding="utf-8") as f:
    presets = set(re.findall(r'"([a-z0-9]+(?:-[a-z0-9.]+)+)"', f.read()))
with open(os.path.join(SEED, "gpus.csv"), encoding="utf-8") as f:
    gpu_ids = [line.split(",")[0] for line in f.read().splitlines()[1:] if line]
json_tokens = json_syntax + ['"%s"' % w for w in api_words | presets | set(gpu_ids)] + \
    ['"%s":' % w for w in api_words] + ["scenarios", "SpotPriceHistory", "AvailabilityZone",
                                       "InstanceType", "ProductDescription", "SpotPrice",
                                       "Timestamp", "Linux/UNIX", "gpuplan", "us-east-1a",
                                       "p4d.24xlarge", "2026-11-01T00:00:00Z"]
for t in ["fuzz_training_request", "fuzz_inference_request", "fuzz_recommendation_request",
          "fuzz_catalog_json", "fuzz_import"]:
    write_dict(t, json_tokens)
query_words = ["cloud", "region", "gpu", "min_gpu_count", "max_gpu_count", "min_gpu_memory_gb",
               "max_price_per_hour", "price_kind", "currency", "sort", "order", "limit",
               "cursor", "instance_type", "zone", "since", "until", "name", "min", "ratio",
               "kind", "price_per_gpu", "gpu_count", "gpu_memory", "asc", "desc", "ondemand",
               "spot", "USD", "EUR", "CNY", "aws", "gcp", "us-east-1", "A100", "fail", "=", "&",
               "%", "%00", "%FF", "+", "7b22", "226b223a5b", "5d", "7d"]
write_dict("fuzz_query_params", query_words)
write_dict("fuzz_admission", ["GET ", "POST ", "PUT ", "DELETE ", "PATCH ", "HEAD ", "OPTIONS ",
                              "/api/v1/catalog/import", "/api/v1/estimates/training:batch",
                              "/api/v1/prices", "/api/v1/gpus/", "?", "&", "=", "%", "\n",
                              "\r\n", "Content-Length: ", "Transfer-Encoding: chunked",
                              "Content-Encoding: ", "identity", "IDENTITY", "gzip",
                              "Authorization: Bearer ", "Content-Type: application/json",
                              "20971520", "8388608", "1048576", "1048577", "000000000000001"])
write_dict("fuzz_skypilot_import", ["InstanceType", "AcceleratorName", "AcceleratorCount",
                                    "vCPUs", "MemoryGiB", "GpuInfo", "Price", "SpotPrice",
                                    "Region", "AvailabilityZone", "Arch", "cloud", "region",
                                    "instance_type", "gpu", "gpu_count", "vcpus", "memory_gib",
                                    "price_ondemand", "price_spot", "currency", "price_date",
                                    "source", "zone", "gpu_memory_gb", "\"", "\"\"", ",", "\r\n",
                                    "A100", "V100", "T4", "L4", "H100", "NVIDIA T4",
                                    "a2-highgpu-1g", "n1-standard-8", "us-central1-a", "8.0",
                                    "0.5", "CNY", "2024-12-30", "\xef\xbb\xbf"])
write_dict("fuzz_field_rules", ["2026-11-01", "T12:00:00", ".000", "Z", "+05:30", "-0800",
                                "29", "02", "60", "1e7", "+", "-", "e", "n/a", "\xc3\xa9",
                                "\xed\xa0\x80", "\xf4\x90\x80\x80", "\\", "\x7f"])
write_dict("fuzz_plan_export", ["\x1f", "\xe2\x80\xa8", "\xe2\x80\xa9", "\xc2\x85", "\x00",
                                "\x1b", "\x0b", "\x7f", "---", "#", ": ", "\n", "off", "012",
                                "0x10", "true", "NVIDIA", "AMD", "Google", "spot",
                                "spot_with_fallback", "ondemand", "A100-40GB-SXM4", "aws", "gcp"])
