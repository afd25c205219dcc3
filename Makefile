# The two set-up commands of the README: `make run` and `make test`.
BUILD_DIR ?= build
BUILD_TYPE ?= Release
JOBS ?= 2
# What `make deps` installs: all (build, run and test), build (the Docker build stage) or runtime.
DEPS_MODE ?= all
# Extra CMake options for `make build`, e.g. -DBUILD_TESTING=OFF -DGPUPLAN_BUILD_BENCH=OFF.
CMAKE_ARGS ?=

.PHONY: deps build run test test-postgres clean test-sanitize fuzz-build fuzz fuzz-smoke bench-check

deps:
	./scripts/install-deps.sh $(DEPS_MODE)

build: deps
	cmake -S . -B $(BUILD_DIR) -DCMAKE_BUILD_TYPE=$(BUILD_TYPE) $(CMAKE_ARGS)
	cmake --build $(BUILD_DIR) -j$(JOBS)

run: build
	mkdir -p var
	./$(BUILD_DIR)/gpuplan serve

test: build
	ctest --test-dir $(BUILD_DIR) --output-on-failure -j$(JOBS)

# The same suite on the PostgreSQL backend: a throwaway cluster on a loopback port, a fresh
# database per server-backed test (scripts/test-postgres.sh; docs/operations.md).
test-postgres: build
	./scripts/test-postgres.sh $(BUILD_DIR) -j$(JOBS)

clean:
	rm -rf $(BUILD_DIR)

# The speed guard: the benchmarks of docs/benchmarks.md's Budget table against the figures
# recorded there; fails on a 2x regression (BENCH_CHECK_FACTOR).
bench-check: build
	python3 scripts/bench_check.py $(BUILD_DIR)/bench/gpuplan_bench

# The whole test suite under AddressSanitizer + UndefinedBehaviorSanitizer (docs/fuzzing.md).
# Own build directory; any UB or leak fails the run.
ASAN_DIR ?= build-asan
SANITIZE_CXX ?= c++
SANITIZE_FLAGS := -fsanitize=address,undefined -fno-sanitize-recover=undefined -fno-omit-frame-pointer
SANITIZE_ENV := ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 \
                UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
# Extra ctest arguments, e.g. SANITIZE_CTEST_ARGS='-R Hostile' to run a subset.
SANITIZE_CTEST_ARGS ?=

test-sanitize: deps
	cmake -S . -B $(ASAN_DIR) -DCMAKE_BUILD_TYPE=Debug -DCMAKE_CXX_COMPILER=$(SANITIZE_CXX) \
	  -DCMAKE_CXX_FLAGS="$(SANITIZE_FLAGS)" \
	  -DCMAKE_EXE_LINKER_FLAGS="-fsanitize=address,undefined" \
	  -DCMAKE_SHARED_LINKER_FLAGS="-fsanitize=address,undefined" \
	  -DGPUPLAN_BUILD_BENCH=OFF
	$(SANITIZE_ENV) cmake --build $(ASAN_DIR) -j$(JOBS)
	$(SANITIZE_ENV) ctest --test-dir $(ASAN_DIR) --output-on-failure -j$(JOBS) $(SANITIZE_CTEST_ARGS)

# libFuzzer targets (fuzz/, clang only). fuzz-smoke: the CI run (regressions, seeds, then
# FUZZ_SMOKE_SECONDS of fuzzing per target); fuzz: a long run, e.g. make fuzz FUZZ_SECONDS=600.
FUZZ_SECONDS ?= 600
FUZZ_SMOKE_SECONDS ?= 20
FUZZ_TARGETS ?=

fuzz-build: deps
	./fuzz/run.sh --build-only

fuzz-smoke: deps
	./fuzz/run.sh $(FUZZ_SMOKE_SECONDS) $(FUZZ_TARGETS)

fuzz: deps
	./fuzz/run.sh $(FUZZ_SECONDS) $(FUZZ_TARGETS)
