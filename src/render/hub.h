/* hub.h (render) — how `hub` is shown: the Hugging Face Hub's endpoint, whether
 * requests are allowed in this session and why not, the token's source, the
 * libcurl the requests need and the cache, as text, with the payload (kind
 * "hub"). The verb reads the facts (model/hfhub.h) and hands them here. Pure:
 * no I/O.
 */
#ifndef VS_RENDER_HUB_H
#define VS_RENDER_HUB_H

#include "render/bundle.h"

/* What `hub` shows. Strings are borrowed; NULL or "" where noted. */
typedef struct vs_render_hub_facts {
    const char *endpoint;
    int env_offline;          /* HF_HUB_OFFLINE is set */
    int session_offline;      /* `hub offline` in this session */
    int libcurl;              /* libcurl could be loaded */
    const char *libcurl_why;  /* why not, when it could not */
    const char *token_source; /* where the token came from; NULL: none */
    const char *cache;        /* the cache folder; "": none */
    int asked_online;         /* the line was `hub online` */
} vs_render_hub_facts;

/* The result of `hub`: text only, and the payload (endpoint, offline,
 * env_offline, session_offline, token_source, libcurl, cache). NULL when
 * memory is short. */
vs_bundle *vs_render_hub(const vs_render_hub_facts *f);

#endif
