/* cmp.h — comparison functions for qsort and bsearch. */
#ifndef VS_UTIL_CMP_H
#define VS_UTIL_CMP_H

/* Two elements of an array of strings (char * or const char *), by strcmp. */
int vs_cmp_str(const void *a, const void *b);

#endif
