// SPDX-License-Identifier: GPL-2.0-only
/*
 * Copy-on-write faults as case-anon-cow-seq makes them: SIZE MiB of private
 * anonymous memory filled, a fork(), and the child ("c") or the parent
 * ("p") writes every STEP-th byte; its thread CPU time a page.  The
 * standalone figure docs/validation.md and docs/live.md set beside the
 * live executor's (1.87-1.93 us a page child-written, step 8), and, under
 * `perf stat -a -e tlb:tlb_flush`, what counting a tracepoint adds:
 *   gcc -O2 -o cow scripts/validation/cow_faults.c && ./cow 512 8 c
 *   perf stat -a -e tlb:tlb_flush -o /dev/null ./cow 512 8 c
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>
#include <time.h>
static double now(){struct timespec t;clock_gettime(CLOCK_THREAD_CPUTIME_ID,&t);return t.tv_sec*1e9+t.tv_nsec;}
int main(int argc,char**argv){
  size_t sz=(size_t)atoi(argv[1])<<20; int step=atoi(argv[2]); int childwrites=argv[3][0]=='c';
  char*p=mmap(0,sz,PROT_READ|PROT_WRITE,MAP_PRIVATE|MAP_ANONYMOUS|MAP_POPULATE,-1,0);
  madvise(p,sz,MADV_NOHUGEPAGE);
  for(size_t i=0;i<sz;i+=4096)p[i]=1;
  int pfd[2];pipe(pfd);
  pid_t c=fork();
  if(c==0){
    if(childwrites){double a=now(); for(size_t i=0;i<sz;i+=step)*(long*)(p+i)=i; double b=now();
      printf("child writes step %d: %.0f ns/page\n",step,(b-a)/(sz/4096));fflush(stdout);}
    else { char x; read(pfd[0],&x,1);} _exit(0);}
  if(!childwrites){double a=now(); for(size_t i=0;i<sz;i+=step)*(long*)(p+i)=i; double b=now();
      printf("parent writes step %d: %.0f ns/page\n",step,(b-a)/(sz/4096)); write(pfd[1],"x",1);}
  wait(0);
}
