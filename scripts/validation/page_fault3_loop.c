// SPDX-License-Identifier: GPL-2.0-only
/*
 * will-it-scale's page_fault3 loop on its own: a 128 MiB sparse file in /tmp
 * read through with 64 KiB pread()s (readahead's large folios, as live mode
 * fills it), then for 2 s: mmap(MAP_SHARED), a store a page, munmap().  It
 * prints ns a page (about 80 here, as the live executor's), and under perf
 * the buffer_head passes' shares (docs/validation.md):
 *   gcc -O2 -o pf3 scripts/validation/page_fault3_loop.c && ./pf3
 *   perf record -e cpu-clock -c 200000 -g ./pf3 && perf report --children
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <fcntl.h>
#include <unistd.h>
#include <sys/mman.h>
#include <time.h>
static double now(){struct timespec t;clock_gettime(CLOCK_MONOTONIC,&t);return t.tv_sec+t.tv_nsec*1e-9;}
int main(){
  size_t sz=128<<20; char path[]="/tmp/pf3XXXXXX"; int fd=mkstemp(path); unlink(path); ftruncate(fd,sz);
  static char buf[65536]; for(size_t o=0;o<sz;o+=65536) pread(fd,buf,65536,o);
  double t0=now(); long pages=0; int it=0;
  while(now()-t0<2.0){ char*c=mmap(0,sz,PROT_READ|PROT_WRITE,MAP_SHARED,fd,0);
    for(size_t i=0;i<sz;i+=4096){c[i]=0; pages++;} munmap(c,sz); it++; }
  double t=now()-t0; printf("%d iterations, %.1f ns/page, %.3g pages/s\n",it,t*1e9/pages,pages/t);
}
