/* regen_records — writes records/examples/seed-7b-inference/sheet.json from the
 * verbs (tests/unit/seed_record.h), after a deliberate change of the record
 * layout, the verbs or the GPU catalogue. Review the diff before committing it;
 * test_sizing_records then compares the verbs' output with the file and never
 * writes it. Usage: regen_records [FILE] (default: the source tree's example). */
#include <stdio.h>
#include <stdlib.h>

#include "../unit/seed_record.h"

#ifndef VS_SOURCE_DIR
#define VS_SOURCE_DIR "."
#endif

int main(int argc, char **argv)
{
    const char *path =
        argc > 1 ? argv[1] : VS_SOURCE_DIR "/records/examples/seed-7b-inference/sheet.json";
    char why[VS_ERROR_MESSAGE_MAX + 64] = "";
    char *text = vs_seed_from_verbs(why, sizeof why);
    FILE *f;
    if (!text) {
        fprintf(stderr, "regen_records: the seed cell failed: %s\n", why);
        return 1;
    }
    f = fopen(path, "wb");
    if (!f || fputs(text, f) < 0 || fclose(f) != 0) {
        fprintf(stderr, "regen_records: cannot write %s\n", path);
        free(text);
        return 1;
    }
    printf("wrote %s\n", path);
    free(text);
    return 0;
}
