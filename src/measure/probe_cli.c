#include <stdio.h>
#include "cli.h"
int vs_probe_main(int argc, char **argv) { (void)argc; fprintf(stderr, "vramsheet %s: not built yet\n", argv[0]); return 1; }
