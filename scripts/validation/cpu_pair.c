// SPDX-License-Identifier: GPL-2.0-only
/*
 * Can this machine run two CPUs at full speed at once?  docs/validation.md
 * uses it to rule out the host's CPU capacity and a VM-wide lock around
 * page faults.  Mode 0: a compute loop; mode 1: 40 rounds of mapping
 * 16 MiB, faulting it in 4K pages (MADV_NOHUGEPAGE) and unmapping it.
 * It runs the job alone on CPU 0, then in two processes on CPUs 0 and 1
 * at once, and prints each one's wall and CPU time.
 *   gcc -O2 -o cpu_pair scripts/validation/cpu_pair.c && ./cpu_pair 0 && ./cpu_pair 1
 */
#define _GNU_SOURCE
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
static double wall(void){struct timespec t;clock_gettime(CLOCK_MONOTONIC,&t);return t.tv_sec*1e3+t.tv_nsec/1e6;}
static double cpu(void){struct timespec t;clock_gettime(CLOCK_THREAD_CPUTIME_ID,&t);return t.tv_sec*1e3+t.tv_nsec/1e6;}
static void pin(int c){cpu_set_t s;CPU_ZERO(&s);CPU_SET(c,&s);sched_setaffinity(0,sizeof s,&s);}
static volatile unsigned long sink;
static void job(int kind){
	if(kind==0){unsigned long x=0; for(long i=0;i<300000000;i++) x+=i^(x>>3); sink=x; return;}
	size_t sz=16<<20; for(int r=0;r<40;r++){char*p=mmap(NULL,sz,PROT_READ|PROT_WRITE,MAP_PRIVATE|MAP_ANONYMOUS,-1,0); madvise(p,sz,MADV_NOHUGEPAGE); for(size_t i=0;i<sz;i+=4096)p[i]=1; munmap(p,sz);}
}
int main(int argc,char**argv){
	int kind=atoi(argv[1]);
	pin(0); double w0=wall(),c0=cpu(); job(kind); printf("%s alone: wall %.0f ms cpu %.0f ms\n",kind?"faults":"spin",wall()-w0,cpu()-c0);
	double t0=wall();
	for(int c=0;c<2;c++) if(!fork()){pin(c); double w=wall(),cc=cpu(); job(kind); printf("  %s pair cpu%d: wall %.0f ms cpu %.0f ms\n",kind?"faults":"spin",c,wall()-w,cpu()-cc); fflush(stdout); _exit(0);}
	wait(0);wait(0); printf("pair total wall %.0f ms\n",wall()-t0);
}
