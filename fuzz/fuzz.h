/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The parsers' fuzz targets.  Each fuzz_*.c defines one function
 * fuzz_NAME(data, size) that feeds one input to one parser and returns 0;
 * a crash, hang or sanitizer report is the failure.  They are driven two
 * ways:
 *   - by libFuzzer, for long runs by hand (fuzz/README.md): built with
 *     clang -fsanitize=fuzzer, FUZZ_LIBFUZZER defines the entry point;
 *   - by tests/test_fuzz.c, a self-contained mutation loop that runs each
 *     for a bounded number of inputs in CI (MMSIM_FUZZ_ITERS to change it).
 */
#ifndef MMSIM_FUZZ_H
#define MMSIM_FUZZ_H

#include <stddef.h>
#include <stdint.h>

int fuzz_profile(const uint8_t *data, size_t size);
int fuzz_options(const uint8_t *data, size_t size);
int fuzz_merge(const uint8_t *data, size_t size);
int fuzz_diff(const uint8_t *data, size_t size);

#ifdef FUZZ_LIBFUZZER
#define FUZZ_ENTRY(fn) \
	int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size); \
	int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) { return fn(data, size); }
#else
#define FUZZ_ENTRY(fn)
#endif

#endif /* MMSIM_FUZZ_H */
