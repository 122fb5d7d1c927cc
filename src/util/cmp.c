#include "util/cmp.h"

#include <string.h>

int vs_cmp_str(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}
