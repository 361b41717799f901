/* mem.h - big fresh buffers: asking the kernel to populate them in bulk (in
 * the caller's thread or a helper beside it), and growing them.
 *
 * Loading a program touches a few hundred MB of fresh memory: the file
 * buffer, the DOM arena, the IR arena. Touched one 4 KiB page at a time,
 * each page costs a fault, and on virtual machines a fault is dear (it was
 * half of the load time of a 190 MB program). These calls ask for
 * transparent huge pages where the system allows them (madvise mode) and
 * populate a range in one system call. Both are hints: a kernel that
 * refuses them leaves ordinary faults, and the result is the same. */
#ifndef EXDB_CORE_BASE_MEM_H
#define EXDB_CORE_BASE_MEM_H

#include <stddef.h>
#include <stdint.h>

/* Below these sizes a buffer is left to ordinary faults / small pages. */
#define EXDB_POPULATE_MIN ((size_t)64 << 10)
#define EXDB_HUGEPAGE_MIN ((size_t)2 << 20)

/* Whether exdb_mem_hugepage asks for huge pages (off until turned on: the
 * REPL turns it on with EXDB_HUGEPAGES=1). On the shared bench VM of
 * 2026-11 a 2 MiB huge page cost three times the kernel time of the same
 * memory in 4 KiB pages (2 GB populated: 3.1 s against 1.1 s of system
 * time): the unflatten run of the 1M-node program took 13.4 s of system
 * time with them and 7.5 s without (user time 10.8 -> 12.6 s), its first
 * prompt 7.4 s and 2.5 s (5.1 -> 5.7 s); at 100k nodes 0.95 s and 0.4 s.
 * Where huge pages are cheap (bare metal, or a host that backs them) they
 * save the page faults and TLB misses instead. */
void exdb_mem_hugepages(int on);
/* Marks [p, p+n) as a candidate for transparent huge pages (when on). */
void exdb_mem_hugepage(void *p, size_t n);
/* Populates the whole pages inside [p, p+n) for writing, now. */
void exdb_mem_populate(void *p, size_t n);

/* Populates the whole pages [p, p+n) (page-aligned) for writing: now, or,
 * when the calling thread has a helper (exdb_mem_ahead_start), in the
 * helper's thread, asynchronously: the caller goes on at once, and a page
 * it writes before the helper got to it is faulted in as without the
 * call. A hint either way (contents never change). */
void exdb_mem_populate_pages(void *p, size_t n);
/* Gives back the whole pages [p, p+n) (page-aligned) of a read-only file
 * mapping (MADV_DONTNEED: unmapped, read again from the page cache on the
 * next touch): now, or by the calling thread's helper, which the caller
 * stops before the mapping can go away. Only for such pages: on anonymous
 * memory it would zero them. */
void exdb_mem_give_back_pages(const void *p, size_t n);
/* Starts a thread that populates what the calling thread's arenas ask for
 * (exdb_mem_populate_pages), so that on two cores the kernel's page
 * clearing runs beside the caller instead of inside it (a 1M-node load
 * populates ~1.4 GB of IR, its unflatten run ~2.7 GB), and gives back the pages of the text it asks
 * exdb_mem_give_back_pages for; 1 when started, 0 when the caller has one
 * already, the kernel has no MADV_POPULATE_WRITE, no thread can be had,
 * or faults are injected. The caller stops it (exdb_mem_ahead_stop) before
 * it returns, so nothing outlives the call that needed it (a fork()
 * between them would leave the child without the thread). */
int exdb_mem_ahead_start(void);
void exdb_mem_ahead_stop(void);
/* The text size from which a program's big fills start a helper: the
 * first pass's DOM (program.c), the IR (load_graph.c), an unflatten run
 * (unflatten.c); below it a thread costs more than it saves. */
#define EXDB_MEM_AHEAD_MIN ((size_t)32 << 20)
/* Whether the calling thread has a helper, and whether it has carried
 * out everything asked of it (a caller that needs memory populated now and
 * finds it behind, on a busy machine, populates it itself). */
int exdb_mem_ahead_on(void);
int exdb_mem_ahead_idle(void);

/* realloc(p, n) for growing arrays and texts, used bytes of p kept. A big
 * block (mmap'd by malloc: from 1 MB in the REPL, repl/main.c) grows where
 * glibc remaps its pages, neither copied nor held twice (a malloc, copy and
 * free had the 128 MB of the 1M-node program's code beside its 256 MB
 * successor: print code's peak); from EXDB_HUGEPAGE_MIN on, the new part is
 * advised for huge pages before anything touches it. NULL (p untouched)
 * when out of memory. */
void *exdb_mem_grow(void *p, size_t used, size_t n);

/* A growable malloc'd array that is full: realloc'd to twice its room
 * (first when empty), *cap updated; NULL when memory runs out (arr is then
 * still valid and *cap unchanged). */
void *exdb_grow(void *arr, uint32_t *cap, size_t elem, uint32_t first);

#endif
