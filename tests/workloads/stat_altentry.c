/* f_altentry has a second entry point, f_alt2, 3 bytes in, reached only through a pointer
 * taken with lea (hand-written code does this). Moving f_altentry's first 5 bytes would break
 * f_alt2: the jump entry must be refused. main calls f_altentry 3 times and f_alt2 twice; exit 0
 * if the results are right. */
__asm__(".text\n"
        ".globl f_altentry\n.type f_altentry,@function\n"
        "f_altentry:\n nop\n nop\n nop\n"
        ".globl f_alt2\n"
        "f_alt2:\n mov %edi, %eax\n add $7, %eax\n ret\n"
        ".size f_altentry, .-f_altentry\n"
        ".globl call_alt2\n.type call_alt2,@function\n"
        "call_alt2:\n lea f_alt2(%rip), %rax\n jmp *%rax\n"
        ".size call_alt2, .-call_alt2\n");

int f_altentry(int x);
int call_alt2(int x);

int main(void)
{
    int s = 0;
    for (int i = 0; i < 3; i++)
        s += f_altentry(i);
    s += call_alt2(1) + call_alt2(2);
    return s == (0 + 1 + 2 + 21) + (8 + 9) ? 0 : 1;
}
/* SPDX-License-Identifier: MIT */
