# Thin wrapper over CMake. Each target checks (and, as root, installs) what it needs.
BUILD      ?= build
BUILD_ASAN ?= build-asan
BUILD_FUZZ ?= build-fuzz
JOBS       ?= $(shell nproc)
CMAKE_ARGS ?=
FUZZ_SECONDS ?= 30

.PHONY: all deps test test-asan bench demo fuzz clean

all: deps
	cmake -S . -B $(BUILD) -DCMAKE_BUILD_TYPE=Release $(CMAKE_ARGS)
	cmake --build $(BUILD) -j $(JOBS)

deps:
	@scripts/deps.sh build

test: all
	@scripts/deps.sh test
	cd $(BUILD) && ctest --output-on-failure -j $(JOBS)

test-asan:
	@scripts/deps.sh test
	cmake -S . -B $(BUILD_ASAN) -DCMAKE_BUILD_TYPE=Debug -DCUZK_SANITIZE=ON -DCUZK_CUDA=OFF $(CMAKE_ARGS)
	cmake --build $(BUILD_ASAN) -j $(JOBS)
	cd $(BUILD_ASAN) && ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1 \
	    ctest --output-on-failure -j $(JOBS)

bench: all
	@for b in $(BUILD)/bench_*; do echo "== $$b"; $$b || exit 1; done

demo: all
	scripts/demo.sh $(BUILD)

fuzz:
	@scripts/deps.sh fuzz
	CC=clang CXX=clang++ cmake -S . -B $(BUILD_FUZZ) -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCUZK_FUZZ=ON -DCUZK_CUDA=OFF $(CMAKE_ARGS)
	cmake --build $(BUILD_FUZZ) -j $(JOBS)
	@mkdir -p $(BUILD_FUZZ)/logs; for f in $(BUILD_FUZZ)/fuzz_*; do \
	    [ -f $$f ] && [ -x $$f ] || continue; \
	    name=$$(basename $$f); mkdir -p $(BUILD_FUZZ)/corpus/$$name; \
	    echo "== $$name ($(FUZZ_SECONDS) s)"; \
	    seeds=fuzz/corpus/$$name; [ -d $$seeds ] || seeds=; \
	    $$f -max_total_time=$(FUZZ_SECONDS) $(BUILD_FUZZ)/corpus/$$name $$seeds \
	        > $(BUILD_FUZZ)/logs/$$name.log 2>&1; rc=$$?; tail -n 3 $(BUILD_FUZZ)/logs/$$name.log; \
	    [ $$rc = 0 ] || { echo "$$name failed (exit $$rc): $(BUILD_FUZZ)/logs/$$name.log"; exit 1; }; \
	done

clean:
	rm -rf $(BUILD) $(BUILD_ASAN) $(BUILD_FUZZ)
