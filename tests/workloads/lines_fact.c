static unsigned long fact (unsigned long n) {
    if (n > 1) {
        return n * fact(n - 1);
    } else {
        return 1;
    }
}

int main (int argc, char **argv) {
    printf("fact(20)=%lu\n", fact(20));
    return 0;
}
/* SPDX-License-Identifier: MIT */
