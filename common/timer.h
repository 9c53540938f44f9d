/* timer.h — clocks: a monotonic nanosecond clock and the CPU's time-stamp counter.
 *
 * Cycles in rnnscale are TSC cycles (constant rate, not the core clock, which a VM
 * cannot read); the TSC rate is calibrated against CLOCK_MONOTONIC once and recorded
 * in machine.json, so cycles/element = ns/element * tsc_ghz. */
#ifndef RS_TIMER_H
#define RS_TIMER_H

#include <stdint.h>

uint64_t rs_now_ns(void);        /* CLOCK_MONOTONIC, nanoseconds */
uint64_t rs_cycles(void);        /* TSC (rdtsc), or rs_now_ns() where there is none */
double rs_tsc_ghz(void);         /* calibrated TSC rate (GHz), measured once, cached */
double rs_timer_granularity_ns(void); /* smallest observed nonzero step of rs_now_ns() */

#endif
