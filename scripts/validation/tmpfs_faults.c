// SPDX-License-Identifier: GPL-2.0-only
/*
 * A tmpfs fault loop, as calibrate's tmpfs rounds: ROUNDS times a new memfd
 * of SIZE MiB mapped shared, one load (or, with "w", one store) a page,
 * munmap(), close(); the best and mean thread CPU time a page.  Under perf
 * it gives the shares docs/calibrate.md cites (5.7% in the i_pages unlock
 * under shmem_add_to_page_cache(), 5.1% under shmem_inode_acct_blocks(),
 * 5.9% in shmem_get_folio_gfp() itself):
 *   gcc -O2 -o shm scripts/validation/tmpfs_faults.c && ./shm 64 10 && ./shm 64 10 w
 *   perf record -e cpu-clock -c 200000 -g ./shm 64 40 && perf report --children
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>
#include <time.h>
int main(int argc,char**argv){
  size_t sz=(size_t)atoi(argv[1])<<20; int rounds=atoi(argv[2]); int wr=argc>3&&argv[3][0]=='w';
  double best=1e9, tot=0;
  for(int r=0;r<rounds;r++){
    int fd=memfd_create("x",0); ftruncate(fd,sz);
    volatile char*p=mmap(0,sz,PROT_READ|PROT_WRITE,MAP_SHARED,fd,0);
    struct timespec a,b; clock_gettime(CLOCK_THREAD_CPUTIME_ID,&a);
    unsigned long s=0;
    for(size_t i=0;i<sz;i+=4096){ if(wr) p[i]=1; else s+=p[i]; }
    clock_gettime(CLOCK_THREAD_CPUTIME_ID,&b);
    double ns=((b.tv_sec-a.tv_sec)*1e9+(b.tv_nsec-a.tv_nsec))/(sz/4096);
    if(ns<best)best=ns;
    tot+=ns;
    munmap((void*)p,sz); close(fd);
  }
  printf("best %.0f ns/page mean %.0f\n",best,tot/rounds);
}
