/* store_sheet.c — a recorded sheet read back through the record's own check. */
#include "store/store_sheet.h"

#include "sheet/derived.h"
#include "sheet/sheet.h"

int vs_store_load_sheet(vs_store *st, const char *id, const char *rev, json_t **out,
                        vs_store_blob *blob, vs_error *err)
{
    int rc;
    *out = NULL;
    if ((rc = vs_store_read(st, id, rev, NULL, blob, err)) < 0)
        return rc;
    if ((rc = vs_sheet_load(out, blob->data, blob->len, err)) < 0) {
        vs_error_prefix(err, "sheets/%s/sheet.json at %.12s: ", id, blob->commit);
        vs_store_blob_clear(blob);
        return rc;
    }
    vs_sheet_refresh_derived(*out);
    return 0;
}
