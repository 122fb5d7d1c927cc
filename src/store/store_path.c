/* The records path when none is given (store.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "store/store.h"

char *vs_store_default_path(void)
{
    const char *env, *home;
    char *p = NULL;
    size_t n;
    env = getenv("VRAMSHEET_RECORDS");
    if (env && *env) {
        p = strdup(env);
    } else if ((env = getenv("XDG_DATA_HOME")) && *env == '/') {
        n = strlen(env) + sizeof "/vramsheet/records";
        if ((p = malloc(n)))
            snprintf(p, n, "%s/vramsheet/records", env);
    } else {
        home = getenv("HOME");
        if (!home || !*home)
            home = ".";
        n = strlen(home) + sizeof "/.local/share/vramsheet/records";
        if ((p = malloc(n)))
            snprintf(p, n, "%s/.local/share/vramsheet/records", home);
    }
    return p;
}
