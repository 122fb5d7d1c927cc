/* cli.h — the subcommands of the one `vramsheet` binary.
 *
 * Each is a main() of its own: argv[0] is the subcommand name, the return value
 * is the process exit status (0 ok, 1 a failure of the work, 2 a usage error).
 * Each prints its own --help. They live beside the module they drive.
 */
#ifndef VS_CLI_H
#define VS_CLI_H

int vs_cli_kernel(int argc, char **argv);  /* src/kernel/: kernel -f CONNECTION_FILE */
int vs_cli_install(int argc, char **argv); /* src/kernel/: install [--user | --prefix DIR] */
int vs_cli_run(int argc, char **argv);     /* src/lang/:   run FILE */
int vs_cli_log(int argc, char **argv);     /* src/store/:  log [SHEET] */
int vs_cli_show(int argc, char **argv);    /* src/store/:  show SHEET[@REV] */
int vs_cli_convert(int argc, char **argv); /* src/lang/:   convert FILE [--to py|ipynb] */
int vs_cli_report(int argc, char **argv);  /* src/lang/:   report SHEET[@REV] [--since REV] */
int vs_cli_probe(int argc, char **argv);   /* src/measure/: probe --out FILE -- COMMAND */

#endif
