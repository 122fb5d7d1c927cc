/* redact.h — credentials taken out of a command line before it is recorded.
 *
 * A measured command is kept in the sheet, its Markdown and every push of the
 * records; `HF_TOKEN=hf_... python3 serve.py` would publish the token. What
 * looks like a credential is replaced by <redacted>: the value of a shell
 * assignment whose name holds TOKEN, KEY, SECRET, PASSWORD or PASSWD (any case),
 * and the password of a URL's user:password@. The rest of the text is kept as
 * typed. Pure text: the process itself is run with the command as typed.
 */
#ifndef VS_UTIL_REDACT_H
#define VS_UTIL_REDACT_H

#include "util/buf.h"

#define VS_REDACTED "<redacted>"

/* Appends command to out with the credentials replaced, and to names (may be
 * NULL) what was redacted, comma-separated ("HF_TOKEN, a URL's password").
 * Returns how many values were redacted (0: out holds command unchanged). */
int vs_redact_command(vs_buf *out, vs_buf *names, const char *command);

#endif
