/* SPDX-License-Identifier: MIT OR GPL-2.0-only */
/* syscount's counting in the kernel: programs on the raw syscall tracepoints and on the
 * scheduler's fork, exec and exit tracepoints, attached as raw tracepoints (no tracefs needed).
 *
 * Raw tracepoints, not tp_btf: a tp_btf program is typed by the kernel's BTF, which libbpf then
 * reads whole (5.5 MB, half of the start-up) to find its target, whatever BTF the field accesses
 * are relocated against. A raw tracepoint's arguments are plain numbers: the scheduler's
 * structures are read with CO-RE reads (BPF_CORE_READ), and the current task, which task storage
 * is keyed by, comes typed from bpf_get_current_task_btf(), and its registers typed from
 * bpf_task_pt_regs().
 *
 * The followed set. `followed` maps the thread group id of every process of the traced tree to
 * its index in `processes`: user space puts the command (or the attached process) there first;
 * a fork by a followed process adds the child, the exit of a process's last thread removes it.
 * A call of any other process is never counted, whatever it calls. The command goes in as soon
 * as it is forked, marked SC_HELD: until its exec it is still syscount, on its way there, and of
 * its calls only the exec counts (sched_process_exec clears the mark).
 *
 * A call is counted in two halves. At entry (sys_enter) the call's ABI and number are looked up
 * in `counted`, the class's table, filled by user space before the programs are attached; a
 * counted call of a followed task leaves its ABI, number, start time and path pointer in the
 * task's local storage. That storage is made at the task's first counted call, once `followed`
 * says its process is followed, and holds the process's index from then on: every later call
 * of the task finds it with one lookup, not a hash lookup of its process and then one of the
 * storage (a third of the entry program's time). At exit (sys_exit) its result is known: calls
 * and time go to `calls` under (ABI, number, errno), per CPU and so without atomic operations,
 * the process's counters grow, and the path is read now, not at entry, when a name in a page
 * not yet faulted in reads as nothing. A successful execve has no old memory left at its exit:
 * sched_process_exec points the path at the copy of the name on the new program's stack
 * (bprm->exec, AT_EXECFN), read at exit like any other. For an execveat relative to a
 * descriptor the kernel wrote that name "/dev/fd/N/name": the path is the name after it, as it
 * was passed, and none at all for the descriptor itself (AT_EMPTY_PATH), which looks up no path.
 *
 * A call that returns to a task with SIGKILL pending (killed, or a thread of a process whose
 * other thread exited) is not counted: the task never sees its result, and ptrace reports no
 * exit of it, so strace does not count it either.
 *
 * Paths. Hash maps hash and compare whole keys, so a name goes into the smallest key it fits:
 * shorter than SC_TINY_PATH into `tiny_paths` (most names), than SC_SHORT_PATH into
 * `short_paths`, else into `long_paths`. A name is read once, into a short key zeroed first,
 * whose head is its tiny key; only a long name is read again, into a long key. The two smaller
 * maps share the room of --max-paths (user space sizes them): a tiny name beyond a full tiny map
 * goes into the short map, zero-padded as it was read. When the map a name can go into is full,
 * the lookup is folded: a tiny or short name into its directory in `folded`, a long one into
 * "/", and when `folded` is full too, into "/".
 *
 * ABIs (x86_64): a 32-bit task's calls come with TS_COMPAT in its thread_info status and are
 * numbered in i386's table; an x32 call has __X32_SYSCALL_BIT in its number. Their pointers are
 * 32 bits wide. */
#include "vmlinux.h"

#include <bpf/bpf_core_read.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>

#include "counts.h"

#define TS_COMPAT 0x0002
#define X32_SYSCALL_BIT 0x40000000
#define ABI_I386 1
#define ABI_X32 2
#define EEXIST 17
#define MAX_ERRNO 4095
#define NR_EXECVE 59 /* x86_64 */
#define NR_EXECVEAT 322
#define NR_EXECVEAT_I386 358
#define NR_EXECVEAT_X32 545
#define SIGKILL_BIT (1UL << (9 - 1))

char LICENSE[] SEC("license") = "Dual MIT/GPL";

const volatile __u32 max_processes = 100000; /* processes[max_processes] is "(others)" */

__u8 counted[SC_ABIS * SC_MAX_NR];
__u64 next_process;  /* the index the next process gets */
__u32 target_tgid;   /* attach mode: the process whose end is awaited */
__u32 target_exited; /* attach mode: it has, with this code (a wait status): */
__s32 target_exit_code;
__u64 lost_calls;     /* calls not counted: no task storage, or `calls` full */
__u64 lost_processes; /* processes not followed: `followed` was full */

const char zeros[sizeof(struct sc_long_key)];

struct inflight {
  __u64 start_ns;
  __u64 path; /* user address of the path argument, 0 when none */
  __u32 process;
  __u16 abi;
  __u16 nr;
  __u8 active;
};

struct {
  __uint(type, BPF_MAP_TYPE_TASK_STORAGE);
  __uint(map_flags, BPF_F_NO_PREALLOC);
  __type(key, int);
  __type(value, struct inflight);
} inflight SEC(".maps");

/* Processes alive at once. A hash map's buckets are made and initialised with it, one per
 * entry: 65,536 cost 2 ms of every start, and no traced tree has a fraction of them alive. */
struct {
  __uint(type, BPF_MAP_TYPE_HASH);
  __uint(map_flags, BPF_F_NO_PREALLOC);
  __uint(max_entries, 16384);
  __type(key, __u32);
  __type(value, __u32);
} followed SEC(".maps");

struct {
  __uint(type, BPF_MAP_TYPE_ARRAY);
  __uint(max_entries, 100001);
  __type(key, __u32);
  __type(value, struct sc_process);
} processes SEC(".maps");

/* Per CPU: a call's counters grow without atomic operations; user space sums the CPUs. One
 * entry per (ABI, call, errno) that happened: a few hundred in a busy trace. */
struct {
  __uint(type, BPF_MAP_TYPE_PERCPU_HASH);
  __uint(map_flags, BPF_F_NO_PREALLOC);
  __uint(max_entries, 4096);
  __type(key, struct sc_call_key);
  __type(value, struct sc_call_value);
} calls SEC(".maps");

/* Lookups by (name, errno), entries allocated as the map fills; user space sizes each. */
#define LOOKUP_COUNTS(key_type, entries)                                                           \
  struct {                                                                                         \
    __uint(type, BPF_MAP_TYPE_HASH);                                                               \
    __uint(map_flags, BPF_F_NO_PREALLOC);                                                          \
    __uint(max_entries, entries);                                                                  \
    __type(key, key_type);                                                                         \
    __type(value, __u64);                                                                          \
  }

LOOKUP_COUNTS(struct sc_tiny_key, 100000) tiny_paths SEC(".maps");
LOOKUP_COUNTS(struct sc_short_key, 100000) short_paths SEC(".maps");
LOOKUP_COUNTS(struct sc_long_key, 1024) long_paths SEC(".maps");
LOOKUP_COUNTS(struct sc_short_key, 100000) folded SEC(".maps"); /* directories */

struct scratch {
  struct sc_short_key short_key;
  struct sc_long_key long_key;
};

struct {
  __uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
  __uint(max_entries, 1);
  __type(key, __u32);
  __type(value, struct scratch);
} scratch SEC(".maps");

/* The registers the current task entered the kernel with, typed: a field is read with one
 * load, where a read through the raw tracepoint's untyped argument is a helper call
 * (bpf_probe_read_kernel), made at the exit of every call on the machine: it made a call that
 * is not counted cost 255 ns more while syscount runs, where it costs 226 without. */
static __always_inline struct pt_regs* entry_regs(struct task_struct* task) {
  return (struct pt_regs*)bpf_task_pt_regs(task);
}

/* Argument k of the call, from the registers its ABI passes arguments in: i386's ebx, ecx,
 * edx, esi, edi, ebp; x86_64's (and x32's) rdi, rsi, rdx, r10, r8, r9. Pointers of i386 and x32
 * are 32 bits wide. */
static __always_inline __u64 syscall_arg(struct pt_regs* regs, __u32 abi, __u32 k) {
  if (abi == ABI_I386)
    return (__u32)(k == 0   ? regs->bx
                   : k == 1 ? regs->cx
                   : k == 2 ? regs->dx
                   : k == 3 ? regs->si
                   : k == 4 ? regs->di
                            : regs->bp);
  __u64 arg = k == 0   ? regs->di
              : k == 1 ? regs->si
              : k == 2 ? regs->dx
              : k == 3 ? regs->r10
              : k == 4 ? regs->r8
                       : regs->r9;
  return abi == 0 ? arg : (__u32)arg;
}

/* Adds one to the counter under `key`; fails with -E2BIG when the map is full. */
static __always_inline long add_one(void* map, const void* key) {
  __u64* n = bpf_map_lookup_elem(map, key);
  if (n) {
    __sync_fetch_and_add(n, 1);
    return 0;
  }
  __u64 one = 1;
  long rc = bpf_map_update_elem(map, key, &one, BPF_NOEXIST);
  if (rc == -EEXIST) { /* another CPU inserted it meanwhile */
    n = bpf_map_lookup_elem(map, key);
    if (n)
      __sync_fetch_and_add(n, 1);
    return 0;
  }
  return rc;
}

/* Counts a lookup under "/", for a name too long for `folded` or when `folded` is full. */
static __always_inline void fold_into_root(struct sc_short_key* key) {
  bpf_probe_read_kernel(key->path, sizeof key->path, zeros);
  key->path[0] = '/';
  add_one(&folded, key);
}

struct directory_search {
  struct sc_short_key* key;
  __u32 len;   /* of the name */
  __s32 slash; /* the index of its last '/', -1 when none */
};

/* From the name's end back: clears each byte up to the last '/', and stops there. */
static long clear_to_slash(__u32 i, void* data) {
  struct directory_search* d = data;
  __u32 at = d->len - 1 - i;
  if (i >= d->len || at >= SC_SHORT_PATH)
    return 1;
  if (d->key->path[at] == '/') {
    d->slash = (__s32)at;
    return 1;
  }
  d->key->path[at] = 0;
  return 0;
}

/* Counts a lookup of `key`'s name (`len` bytes) under its directory in `folded`, as
 * directory_of() names it: "/a/b" under "/a", "/a" under "/", "a" under ".". A global function:
 * the verifier checks it once, not at each of its calls (a loop's callback is dear to check). */
__noinline int fold(struct sc_short_key* key, __u32 len) {
  if (!key)
    return 0;
  struct directory_search d = {.key = key, .len = len, .slash = -1};
  bpf_loop(SC_SHORT_PATH, clear_to_slash, &d, 0);
  if (d.slash < 0)
    key->path[0] = '.';
  else if (d.slash > 0 && d.slash < SC_SHORT_PATH)
    key->path[d.slash] = 0;
  if (add_one(&folded, key) != 0)
    fold_into_root(key);
  return 0;
}

/* A tiny key is the head of a short one: the same fields at the same places. */
_Static_assert(__builtin_offsetof(struct sc_tiny_key, path) ==
                   __builtin_offsetof(struct sc_short_key, path),
               "a tiny key must be a short key's head");

/* Counts a lookup of the name at user address `name` that ended with `err`. The name is read
 * once, into a short key zeroed by stores; if it is tiny, the key's head is its tiny key. */
static __always_inline void count_path(const void* name, __u32 err) {
  __u32 zero = 0;
  struct scratch* s = bpf_map_lookup_elem(&scratch, &zero);
  if (!s)
    return;
  struct sc_short_key* key = &s->short_key;
  __builtin_memset(key, 0, sizeof *key);
  long n = bpf_probe_read_user_str(key->path, SC_SHORT_PATH, name);
  if (n <= 1)
    return; /* unreadable or empty: a call on an fd */
  key->err = err;
  if (n < SC_TINY_PATH && add_one(&tiny_paths, key) == 0)
    return;
  if (n < SC_SHORT_PATH) { /* or a tiny name beyond a full tiny map */
    if (add_one(&short_paths, key) != 0)
      fold(key, (__u32)n - 1);
    return;
  }
  struct sc_long_key* long_key = &s->long_key;
  bpf_probe_read_kernel(long_key, sizeof *long_key, zeros);
  bpf_probe_read_user_str(long_key->path, SC_LONG_PATH, name);
  long_key->err = err;
  if (add_one(&long_paths, long_key) != 0)
    fold_into_root(key);
}

static __always_inline void count_call(const struct inflight* f, __u32 err, __u64 time_ns) {
  struct sc_call_key key = {.abi = f->abi, .nr = f->nr, .err = err};
  struct sc_call_value* v = bpf_map_lookup_elem(&calls, &key);
  if (!v) {
    struct sc_call_value fresh = {};
    bpf_map_update_elem(&calls, &key, &fresh, BPF_NOEXIST);
    v = bpf_map_lookup_elem(&calls, &key);
    if (!v) {
      __sync_fetch_and_add(&lost_calls, 1);
      return;
    }
  }
  v->calls += 1;
  v->time_ns += time_ns;
}

/* How the call `id` (a number as sys_enter and orig_ax give it) of `task` is counted: 0 when it
 * is not, SC_NO_PATH or SC_PATH_ARG0 + k as in `counted`; -1 when `id` is no call's number (a
 * sigreturn leaves -1 in orig_ax). Sets the call's ABI and its number in that ABI's table. */
static __always_inline int how_counted(struct task_struct* task, __u64 id, __u32* abi, __u64* nr) {
  *abi = 0;
  *nr = id;
  if (task->thread_info.status & TS_COMPAT)
    *abi = ABI_I386;
  else if (id & X32_SYSCALL_BIT)
    *abi = ABI_X32, *nr = id & ~(__u64)X32_SYSCALL_BIT;
  if (*nr >= SC_MAX_NR)
    return -1;
  return counted[*abi * SC_MAX_NR + *nr];
}

SEC("raw_tp/sys_enter")
int BPF_PROG(sys_enter, struct pt_regs* regs, long id) {
  struct task_struct* task = bpf_get_current_task_btf();
  __u32 abi;
  __u64 nr;
  int how = how_counted(task, (__u64)id, &abi, &nr);
  if (how <= 0)
    return 0;
  struct inflight* f = bpf_task_storage_get(&inflight, task, 0, 0);
  if (!f) { /* the task's first counted call: is its process followed? */
    __u32 tgid = bpf_get_current_pid_tgid() >> 32;
    __u32* process = bpf_map_lookup_elem(&followed, &tgid);
    if (!process)
      return 0;
    __u32 index = *process;
    if ((index & SC_HELD) && !(abi == 0 && (nr == NR_EXECVE || nr == NR_EXECVEAT)))
      return 0; /* the command before its exec: syscount's own calls */
    f = bpf_task_storage_get(&inflight, task, 0, BPF_LOCAL_STORAGE_GET_F_CREATE);
    if (!f) {
      __sync_fetch_and_add(&lost_calls, 1);
      return 0;
    }
    f->process = index & ~SC_HELD;
  }
  f->abi = abi;
  f->nr = nr;
  f->path = how >= SC_PATH_ARG0 ? syscall_arg(entry_regs(task), abi, how - SC_PATH_ARG0) : 0;
  f->active = 1;
  f->start_ns = bpf_ktime_get_ns();
  return 0;
}

SEC("raw_tp/sys_exit")
int BPF_PROG(sys_exit, struct pt_regs* regs, long ret) {
  struct task_struct* task = bpf_get_current_task_btf();
  /* Most calls are not counted: told apart by their number (orig_ax), they skip the look-up of
   * the task's storage, most of this program's time for them. */
  __u64 id = entry_regs(task)->orig_ax, nr;
  __u32 abi;
  if (how_counted(task, id, &abi, &nr) == 0)
    return 0;
  struct inflight* f = bpf_task_storage_get(&inflight, task, 0, 0);
  if (!f || !f->active)
    return 0;
  f->active = 0;
  if (task->pending.signal.sig[0] & SIGKILL_BIT)
    return 0;
  __u32 err = ret < 0 && ret >= -MAX_ERRNO ? (__u32)-ret : 0;
  count_call(f, err, bpf_ktime_get_ns() - f->start_ns);
  struct sc_process* p = bpf_map_lookup_elem(&processes, &f->process);
  if (p) {
    __sync_fetch_and_add(&p->calls, 1);
    if (err)
      __sync_fetch_and_add(&p->errors, 1);
  }
  if (f->path)
    count_path((const void*)f->path, err);
  return 0;
}

SEC("raw_tp/sched_process_fork")
int BPF_PROG(sched_process_fork, struct task_struct* parent, struct task_struct* child) {
  __u32 tgid = BPF_CORE_READ(child, tgid);
  if (BPF_CORE_READ(child, pid) != tgid)
    return 0; /* a thread: its process is followed already */
  __u32 parent_tgid = BPF_CORE_READ(parent, tgid);
  if (!bpf_map_lookup_elem(&followed, &parent_tgid))
    return 0;
  __u32 index = __sync_fetch_and_add(&next_process, 1);
  if (index > max_processes)
    index = max_processes;
  if (bpf_map_update_elem(&followed, &tgid, &index, BPF_ANY) != 0) {
    __sync_fetch_and_add(&lost_processes, 1);
    return 0;
  }
  struct sc_process* p = bpf_map_lookup_elem(&processes, &index);
  if (p && index < max_processes) {
    p->tgid = tgid;
    bpf_probe_read_kernel_str(p->comm, sizeof p->comm, child->comm);
  }
  return 0;
}

SEC("raw_tp/sched_process_exec")
int BPF_PROG(sched_process_exec, struct task_struct* exec_task, pid_t old_pid,
             struct linux_binprm* bprm) {
  __u32 tgid = bpf_get_current_pid_tgid() >> 32;
  __u32* followed_as = bpf_map_lookup_elem(&followed, &tgid);
  if (!followed_as)
    return 0;
  __u32 index = *followed_as & ~SC_HELD;
  *followed_as = index; /* the command is past its exec */
  struct sc_process* p = bpf_map_lookup_elem(&processes, &index);
  if (p && index < max_processes)
    bpf_get_current_comm(p->comm, sizeof p->comm);
  struct task_struct* task = bpf_get_current_task_btf(); /* the task that execs */
  struct inflight* f = bpf_task_storage_get(&inflight, task, 0, 0);
  if (!f || !f->active || !f->path)
    return 0;
  f->path = BPF_CORE_READ(bprm, exec); /* the name where the new stack holds it */
  if (f->nr != (f->abi == ABI_I386 ? NR_EXECVEAT_I386
                : f->abi == ABI_X32  ? NR_EXECVEAT_X32
                                     : NR_EXECVEAT))
    return 0;
  char name[24] = {};
  bpf_probe_read_kernel_str(name, sizeof name, BPF_CORE_READ(bprm, filename));
  const char prefix[] = "/dev/fd/";
  for (int i = 0; i < 8; i++)
    if (name[i] != prefix[i])
      return 0;
  for (int i = 8; i < (int)sizeof name; i++) {
    if (name[i] >= '0' && name[i] <= '9')
      continue;
    if (name[i] == '/')
      f->path += i + 1; /* the name given, after "/dev/fd/N/" */
    else
      f->path = 0; /* "/dev/fd/N": the descriptor itself */
    break;
  }
  return 0;
}

SEC("raw_tp/sched_process_exit")
int BPF_PROG(sched_process_exit, struct task_struct* task) {
  if (BPF_CORE_READ(task, signal, live.counter) != 0)
    return 0; /* other threads of the process run on */
  __u32 tgid = BPF_CORE_READ(task, tgid);
  bpf_map_delete_elem(&followed, &tgid);
  if (tgid == target_tgid) {
    target_exit_code = BPF_CORE_READ(task, exit_code);
    target_exited = 1;
  }
  return 0;
}
