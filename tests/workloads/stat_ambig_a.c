/* Two static functions named helper() in two files: `-r helper` is ambiguous. */
void call_a(void);
volatile int sink_a;
__attribute__((noinline)) static void helper(void) { sink_a++; }
void call_a(void) { helper(); }
int main(void);
/* SPDX-License-Identifier: MIT */
