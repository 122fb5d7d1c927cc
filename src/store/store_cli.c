#include <stdio.h>
#include "cli.h"
int vs_log_main(int argc, char **argv) { (void)argc; fprintf(stderr, "vramsheet %s: not built yet\n", argv[0]); return 1; }
int vs_show_main(int argc, char **argv) { (void)argc; fprintf(stderr, "vramsheet %s: not built yet\n", argv[0]); return 1; }
