/* wfile_safetensors.h — a safetensors header's tensors as a weights-file list. */
#ifndef VS_MODEL_WFILE_SAFETENSORS_H
#define VS_MODEL_WFILE_SAFETENSORS_H

#include "model/safetensors.h"
#include "model/wfile.h"

int vs_wfile_safetensors_list(vs_wf_list **out, const vs_st_file *f, vs_error *err);

#endif
