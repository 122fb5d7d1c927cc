/* libFuzzer target for src/kernel/wire: any bytes, cut into frames, must parse or
 * be refused cleanly, with and without a key; what parses must re-serialise and
 * parse again to the same JSON. Frames are separated by the byte 0x00 followed by
 * 0xFF (rare in text, easy to write in a seed). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "kernel/wire.h"

#define MAXF 64

static const unsigned char key[] = "a0436f6c-1916-498b-8eb9-e81ab9368e84";

static void check_round_trip(const vs_msg *m, const unsigned char *k, size_t kl)
{
    vs_frame *out = NULL;
    size_t n = 0;
    vs_msg *again = NULL;
    if (vs_wire_serialize(&out, &n, m->ids, m->nids, m->header, &m->header_raw, m->metadata,
                          m->content, k, kl, NULL) < 0)
        abort(); /* parsed JSON always serialises */
    if (vs_wire_parse(&again, out, n, k, kl, NULL) < 0)
        abort();
    if (!json_equal(again->content, m->content) || !json_equal(again->header, m->header) ||
        again->nids != m->nids)
        abort();
    vs_msg_free(again);
    vs_wire_frames_free(out, n);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    vs_frame frames[MAXF];
    size_t n = 0, start = 0, i;
    vs_msg *m = NULL;
    char sig[VS_WIRE_SIG_HEX + 1];

    for (i = 0; i + 1 < size && n < MAXF - 1; i++)
        if (data[i] == 0x00 && data[i + 1] == 0xff) {
            frames[n].data = (unsigned char *)data + start;
            frames[n].len = i - start;
            n++;
            start = i + 2;
            i++;
        }
    frames[n].data = (unsigned char *)data + start;
    frames[n].len = size - start;
    n++;

    /* Unsigned (empty key): the parser itself is exposed. */
    if (vs_wire_parse(&m, frames, n, key, 0, NULL) == 0) {
        check_round_trip(m, key, 0);
        check_round_trip(m, key, sizeof key - 1);
        vs_msg_free(m);
    }
    /* Signed: a signature made here must pass, and then the same checks run. */
    for (i = 0; i < n; i++)
        if (frames[i].len == 9 && !memcmp(frames[i].data, VS_WIRE_DELIM, 9))
            break;
    if (i + 6 <= n) {
        vs_wire_sign(key, sizeof key - 1, &frames[i + 2], sig);
        frames[i + 1].data = (unsigned char *)sig;
        frames[i + 1].len = VS_WIRE_SIG_HEX;
        if (vs_wire_parse(&m, frames, n, key, sizeof key - 1, NULL) == 0)
            vs_msg_free(m);
        frames[i + 1].len = VS_WIRE_SIG_HEX - 1;
        if (vs_wire_parse(&m, frames, n, key, sizeof key - 1, NULL) == 0)
            abort(); /* a short signature never passes */
    }
    return 0;
}
