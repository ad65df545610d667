/* The second static helper() (see stat_ambig_a.c) and main. */
void call_a(void);
volatile int sink_b;
__attribute__((noinline)) static void helper(void) { sink_b++; }
int main(void) { helper(); call_a(); return 0; }
/* SPDX-License-Identifier: MIT */
