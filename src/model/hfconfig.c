#include "model/hfconfig.h"

int vs_hfconfig_parse(vs_hfconfig *out, const char *text, size_t len, vs_error *err)
{
    return vs_arch_parse(out, text, len, err);
}

const char *vs_hfconfig_families(void)
{
    return vs_family_names();
}
