/* Placeholder until this group's verbs land. */
#include "lang/verb.h"

const vs_verb vs_verbs_sizing[] = {{0}};
