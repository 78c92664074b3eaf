// SPDX-License-Identifier: GPL-2.0-only
/*
 * A 4 KiB page zeroed (rep stosb) between other work: each page of 512 MiB
 * (64 MiB of other lines touched first), followed by GAP iterations of a
 * multiply-add loop; the TSC cycles of the stores alone a page, and the
 * loop's ns a page.  Here, at a TSC of 2596 MHz: 400 cycles (154 ns) back
 * to back (GAP 0), 73 cycles (28 ns) with GAP 1000 (docs/calibrate.md,
 * mem.page_zero_ns):
 *   gcc -O2 -o zb scripts/validation/page_zero_gap.c && ./zb 0 && ./zb 1000
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <stdint.h>
#include <sys/mman.h>
#include <time.h>
#include <x86intrin.h>
static inline void stosb(void *d, size_t n){ __asm__ volatile("rep stosb" : "+D"(d), "+c"(n) : "a"(0) : "memory"); }
static double now(){struct timespec t;clock_gettime(CLOCK_MONOTONIC,&t);return t.tv_sec*1e9+t.tv_nsec;}
int main(int argc,char**argv){
  size_t sz=512UL<<20; int gap=atoi(argv[1]);
  char *p=mmap(0,sz,3,MAP_PRIVATE|MAP_ANONYMOUS|MAP_POPULATE,-1,0);
  char *q=mmap(0,64<<20,3,MAP_PRIVATE|MAP_ANONYMOUS|MAP_POPULATE,-1,0);
  for(int r=0;r<2;r++){
    for(size_t i=0;i<(64<<20);i+=64) q[i]++;       /* evict */
    uint64_t tz=0; double t0=now(); volatile uint64_t sink=0;
    for(size_t off=0;off<sz;off+=4096){
      uint64_t a=__rdtsc(); stosb(p+off,4096); _mm_lfence(); uint64_t b=__rdtsc(); tz+=b-a;
      for(int k=0;k<gap;k++) sink+=k*k;            /* other work */
    }
    double t=now()-t0;
    printf("gap %d: zero %.1f TSC cycles/page, total %.1f ns/page\n",gap,(double)tz/(sz/4096),t/(sz/4096));
  }
}
