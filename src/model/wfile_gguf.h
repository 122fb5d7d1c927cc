/* wfile_gguf.h — a GGUF header's tensor table as a weights-file list. */
#ifndef VS_MODEL_WFILE_GGUF_H
#define VS_MODEL_WFILE_GGUF_H

#include "model/gguf.h"
#include "model/wfile.h"

int vs_wfile_gguf_list(vs_wf_list **out, const vs_gguf_file *f, vs_error *err);

#endif
