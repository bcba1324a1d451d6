/* SPDX-License-Identifier: MIT */
/* What the eBPF programs count, as laid out in their maps: read by syscount.bpf.c (BPF C) and
 * by backend.cpp (C++), so both sides agree on every byte. Keys are zero-padded: a hash map
 * compares them whole. */
#pragma once

#ifndef __bpf__
#include <linux/types.h>
#endif

#define SC_MAX_NR 1024    /* syscall numbers counted per ABI: k_max_syscall_nr */
#define SC_ABIS 3         /* native, i386, x32: opskit::trace::Abi */
#define SC_TINY_PATH 64   /* a path of fewer bytes is kept in the tiny-path map */
#define SC_SHORT_PATH 256 /* else a path of fewer bytes is kept in the short-path map */
#define SC_LONG_PATH 4097 /* PATH_MAX and a NUL; a longer name is kept cut at 4096 bytes */
#define SC_COMM 16        /* TASK_COMM_LEN */

/* counted[abi * SC_MAX_NR + nr]: 0 when the call is not counted, SC_NO_PATH when it is and
 * takes no path, SC_PATH_ARG0 + k when its argument k is a path name. */
#define SC_NO_PATH 1
#define SC_PATH_ARG0 2

/* In a process's entry of `followed`, beside its index: the command not yet past its exec, whose
 * calls are syscount's own but for the exec itself. */
#define SC_HELD 0x80000000u

/* Calls and time of one syscall of one ABI that ended with one errno (0: success). */
struct sc_call_key {
  __u16 abi;
  __u16 nr;
  __u32 err;
};
struct sc_call_value {
  __u64 calls;
  __u64 time_ns;
};

/* Lookups of one path that ended with one errno; the value is their number. Hash maps hash
 * and compare whole keys, so most names, which are short, go in a small key. */
struct sc_tiny_key {
  __u32 err;
  char path[SC_TINY_PATH];
};
struct sc_short_key {
  __u32 err;
  char path[SC_SHORT_PATH];
};
struct sc_long_key {
  __u32 err;
  char path[SC_LONG_PATH];
};

/* One process of the followed tree, in the order they started (its index in the array). */
struct sc_process {
  __u32 tgid;
  __u32 pad;
  __u64 calls;
  __u64 errors;
  char comm[SC_COMM];
};
