/* libFuzzer target for src/kernel/replay: any sequence of signatures against a
 * plain reference list. The input is cut into signatures, each a length byte
 * (0..95) and that many bytes. Checked for each: one of the last CAP accepted
 * is always refused (bounded memory forgets only older ones); an HMAC-shaped
 * signature (64 hex digits, either case) never accepted before is accepted
 * (no false replay); every signature is refused right after it is accepted. */
#include <ctype.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "kernel/replay.h"

#define CAP 5
#define MAXS 4096

typedef struct ref {
    unsigned char sig[96];
    size_t len;
} ref;

/* The same signature to the guard: the bytes, or the digits in either case. */
static int hexlike(const unsigned char *s, size_t n)
{
    size_t i;
    if (n != 64)
        return 0;
    for (i = 0; i < n; i++)
        if (!isxdigit(s[i]))
            return 0;
    return 1;
}

static int same(const unsigned char *a, size_t an, const unsigned char *b, size_t bn)
{
    size_t i;
    if (an != bn)
        return 0;
    if (hexlike(a, an) && hexlike(b, bn)) {
        for (i = 0; i < an; i++)
            if (tolower(a[i]) != tolower(b[i]))
                return 0;
        return 1;
    }
    return !memcmp(a, b, an);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static ref accepted[MAXS];
    size_t nacc = 0, at = 0, i;
    vs_replay *r = vs_replay_new(CAP);
    if (!r)
        abort();
    while (at < size && nacc < MAXS) {
        size_t len = data[at++] % 96, recent = 0, ever = 0;
        const unsigned char *sig = data + at;
        int seen;
        if (len > size - at)
            len = size - at;
        at += len;
        for (i = 0; i < nacc; i++)
            if (same(accepted[i].sig, accepted[i].len, sig, len)) {
                ever = 1;
                if (i + CAP >= nacc)
                    recent = 1;
            }
        seen = vs_replay_seen(r, sig, len);
        if (len == 0) {
            if (seen)
                abort(); /* nothing signed: never a replay */
            continue;
        }
        if (recent && !seen)
            abort(); /* forgot one of the last CAP */
        if (hexlike(sig, len) && !ever && seen)
            abort(); /* an HMAC signature refused that was never accepted */
        if (!seen) {
            memcpy(accepted[nacc].sig, sig, len);
            accepted[nacc].len = len;
            nacc++;
            if (!vs_replay_seen(r, sig, len))
                abort(); /* accepted once, refused after */
        }
    }
    vs_replay_free(r);
    return 0;
}
