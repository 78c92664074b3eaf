// SPDX-License-Identifier: GPL-2.0-only
/* TEMPORARY until the cli branch lands. */
#include <stdio.h>
int main(void) { puts("mmsim: cli not merged yet"); return 0; }
