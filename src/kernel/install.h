/* install.h — the kernelspec: the folder Jupyter reads to start vramsheet.
 *
 * A kernelspec is kernels/vramsheet/ with kernel.json (argv, display_name,
 * language, interrupt_mode) and the 32x32 and 64x64 logos, under a Jupyter data
 * directory. This module writes one for a given binary; it knows nothing of
 * sockets. The logos are compiled in (generated from kernel/logo-NNxNN.png at build time),
 * so that `vramsheet install` needs no file beside the binary.
 */
#ifndef VS_KERNEL_INSTALL_H
#define VS_KERNEL_INSTALL_H

#include "util/error.h"

/* The kernelspec's kernel.json for a binary at binary_path, as a new string
 * (free()). Pure. Returns NULL when memory is short. */
char *vs_install_spec_json(const char *binary_path);

/* The per-user Jupyter data directory: $JUPYTER_DATA_DIR, else
 * $XDG_DATA_HOME/jupyter, else $HOME/.local/share/jupyter. Returns 0 or
 * VS_EVALUE when none can be found. */
int vs_install_user_data_dir(char *out, size_t outlen, vs_error *err);

/* Writes kernel.json and the logos into data_dir/kernels/vramsheet (creating the
 * folders), naming binary_path in argv. Returns 0 or VS_EIO; *out_dir (may be
 * NULL) receives the kernelspec folder. */
int vs_install_kernelspec(const char *data_dir, const char *binary_path, char *out_dir,
                          size_t out_dirlen, vs_error *err);

#endif
