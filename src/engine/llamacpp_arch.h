/* llamacpp_arch.h — llama.cpp's own per-architecture rules, as its sources have them.
 *
 * A model's KV layout (sheet/kvlayout) is what its Hugging Face config or its GGUF
 * header describes: the model's ideal figure. llama.cpp does not always follow it:
 * its `llama` architecture (Mistral and Mixtral convert to it) has no sliding
 * window at all, Phi-3's is switched off in code, and which layers slide is fixed
 * per architecture. This module says, for each GGUF `general.architecture` (and
 * for the Hugging Face families that convert to one), whether llama.cpp keeps a
 * sliding-window cache, turns a model's layout into the one llama.cpp allocates,
 * and tells which tensors llama.cpp keeps in host memory (its input layer).
 *
 * Read in llama.cpp at commit 0c1e570 (the tree llama-cpp-python 0.3.36 vendors):
 * src/models/<arch>.cpp (load_arch_hparams), src/llama-arch.cpp (LLM_TENSOR_INFOS),
 * src/llama-model.cpp (load_tensors, create_memory). Pure: no I/O, no globals but
 * the constant tables.
 */
#ifndef VS_ENGINE_LLAMACPP_ARCH_H
#define VS_ENGINE_LLAMACPP_ARCH_H

#include <stddef.h>

#include "sheet/kvlayout.h"

#define VS_LLAMACPP_COMMIT "0c1e570"

typedef enum {
    VS_LCP_SWA_NONE = 0, /* no sliding window, whatever the config or the file says */
    VS_LCP_SWA_KEPT      /* sliding (or chunked) layers as the file describes them */
} vs_llamacpp_swa;

typedef struct vs_llamacpp_arch {
    const char *name; /* general.architecture ("llama", "gemma3", "gpt-oss") */
    vs_llamacpp_swa swa;
    const char *source; /* the file at VS_LLAMACPP_COMMIT and what it does */
} vs_llamacpp_arch;

/* The architecture of a card's family: a GGUF architecture name as the file
 * has it, or a Hugging Face family (model_type) and the architecture its
 * converter (convert_hf_to_gguf.py, conversion/) writes. NULL when llama.cpp's
 * rules for it are not in the table (or name is NULL). */
const vs_llamacpp_arch *vs_llamacpp_arch_find(const char *name);

/* llama.cpp's layout from the model's: for an architecture without a sliding
 * window every sliding and chunked group becomes a full one; otherwise the
 * layout is kept. *changed is 1 when the two differ; why (may be NULL)
 * receives the reason with its source. a NULL: the layout is kept and why says
 * the architecture's rules are not modelled. */
void vs_llamacpp_arch_layout(vs_kv_layout *out, int *changed, char *why, size_t why_size,
                             const vs_llamacpp_arch *a, const char *name, const vs_kv_layout *in);

/* Where llama.cpp puts a GGUF tensor (src/llama-arch.cpp, LLM_TENSOR_INFOS). */
typedef enum {
    VS_LCP_LAYER_REPEATING = 0, /* blk.N.*: on the device of layer N */
    VS_LCP_LAYER_INPUT,         /* token_embd, position and token-type embeddings: host */
    VS_LCP_LAYER_OUTPUT         /* output, output_norm: the output layer's device */
} vs_llamacpp_layer;

vs_llamacpp_layer vs_llamacpp_arch_tensor_layer(const char *gguf_name);

#endif
