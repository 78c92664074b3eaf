# SPDX-License-Identifier: GPL-2.0-only
# The README's two commands:
#   make run    install what is missing, build a release binary, reproduce
#               the published experiments
#   make test   install what is missing, build with ASan and UBSan, run ctest
#   make check  the same build, the fast tests only (ctest -L fast)
.PHONY: run test check deps build build-test bench clean validate

# slurmctld, slurmd, slurm-client, munge and parallel: tests/cluster.sh runs a
# sharded sweep on a local Slurm (scripts/slurm-local.sh) and GNU parallel.
DEB_PACKAGES := cmake ninja-build gcc pkg-config libcmocka-dev libjansson-dev \
	libinih-dev libxml2-utils gnuplot-nox \
	slurmctld slurmd slurm-client munge parallel
JOBS ?= $(shell nproc 2>/dev/null || echo 2)
# live mode (docs/live.md): stress-ng for reclaim-tlb, perf for lock waits
DEB_PACKAGES += stress-ng linux-perf

deps:
	@missing=""; for p in $(DEB_PACKAGES); do \
		dpkg-query -W -f='$${Status}' $$p 2>/dev/null | grep -q "install ok installed" || missing="$$missing $$p"; \
	done; \
	if [ -n "$$missing" ]; then \
		echo "installing:$$missing"; \
		if [ "$$(id -u)" = 0 ]; then SUDO=""; else SUDO=sudo; fi; \
		$$SUDO apt-get update -qq && DEBIAN_FRONTEND=noninteractive $$SUDO apt-get install -y -qq $$missing; \
	fi

build: deps
	cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release -DMMSIM_TESTS=OFF
	cmake --build build -j $(JOBS)

run: build
	./build/mmsim reproduce

build-test: deps
	cmake -S . -B build-test -G Ninja -DCMAKE_BUILD_TYPE=Debug -DMMSIM_SANITIZE=ON
	cmake --build build-test -j $(JOBS)

# The release build is built too, so that tests/test_determinism.c can check
# that it (assembly context switches, -O2) prints what the sanitizer build
# (ucontext, -O1) prints.
test: build-test build
	cd build-test && MMSIM_RELEASE_BIN=$(CURDIR)/build/mmsim ctest --output-on-failure -j $(JOBS)

# The tests labelled fast in CMakeLists.txt: every test but the published
# scale, the local Slurm cluster and the few over about 20 s each (42 of 48).
# Measured on 5 December 2026 on the project's 2-core VM, quiet: 77 s of
# tests with build-test up to date (32 s on 4 December, with fewer tests).
# `make test` runs every test.
check: build-test
	cd build-test && ctest -L fast --output-on-failure -j $(JOBS)

bench: build
	cmake -S . -B build -DMMSIM_BENCH=ON && cmake --build build -j $(JOBS)
	./build/bench_engine

# The model against this machine's kernel (docs/validation.md): a benchmark
# check, not a test (machines are noisy); exits 1 when a judged metric is
# outside the band.  Live runs need root to set THP (--apply).
validate: build
	./build/mmsim validate --check

clean:
	rm -rf build build-test

# make install [PREFIX=/usr/local] [DESTDIR=...]: the binary, its manual page and
# its bash completion, the last two written by the binary from its own tables.
PREFIX ?= /usr/local
.PHONY: install
install: build
	install -D -m 755 build/mmsim $(DESTDIR)$(PREFIX)/bin/mmsim
	mkdir -p $(DESTDIR)$(PREFIX)/share/man/man1 $(DESTDIR)$(PREFIX)/share/bash-completion/completions
	./build/mmsim man > $(DESTDIR)$(PREFIX)/share/man/man1/mmsim.1
	./build/mmsim completion bash > $(DESTDIR)$(PREFIX)/share/bash-completion/completions/mmsim
