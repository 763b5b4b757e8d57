#include "mpi_internal.h"
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
static double now(void){struct timespec t;clock_gettime(CLOCK_MONOTONIC,&t);return t.tv_sec+t.tv_nsec*1e-9;}
int main(int argc,char**argv){
  uint64_t n=1<<24; int P=argc>1?atoi(argv[1]):4; unsigned T=argc>2?atoi(argv[2]):1;
  uint32_t *k=malloc(n*4),*o=malloc(n*4); uint64_t x=1;
  for(uint64_t i=0;i<n;i++){x=x*6364136223846793005ULL+1442695040888963407ULL;k[i]=x>>32;}
  memset(o,0,n*4);
  clsort_mpi__splitter s[64];
  for(int d=1;d<P;d++) s[d-1]=(clsort_mpi__splitter){(uint64_t)d*(1ull<<32)/P,0,0,1};
  uint64_t c[64]; double best=1e9;
  for(int r=0;r<5;r++){double t=now();
  clsort_mpi__partition(CLSORT_U32,false,0,P,s,k,NULL,0,n,o,NULL,c,T);
  t=now()-t; if(t<best)best=t;}
  printf("P=%d T=%u best %.1f ms  %.2f ns/el/thread\n",P,T,best*1e3,best*1e9/n*T);
  /* the same with the minimal loop */
  best=1e9;
  for(int r=0;r<5;r++){double t=now();uint64_t cc[4]={0};for(uint64_t i=0;i<n;i++){unsigned d=(k[i]>0x40000000u)+(k[i]>0x80000000u)+(k[i]>0xc0000000u);cc[d]++;}
  uint64_t at[4]={0,cc[0],cc[0]+cc[1],cc[0]+cc[1]+cc[2]};
  for(uint64_t i=0;i<n;i++){unsigned d=(k[i]>0x40000000u)+(k[i]>0x80000000u)+(k[i]>0xc0000000u);o[at[d]++]=k[i];}
  t=now()-t; if(t<best)best=t;}
  printf("minimal single-thread loop: best %.1f ms %.2f ns/el\n",best*1e3,best*1e9/n);
  return 0;}
