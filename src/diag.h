/*
 * diag.h - the driver's side of diag.c: colour, -w and the closing count.
 *
 * The passes report through error_at/warning_at/note_at (kernc.h); only the
 * command-line drivers (main.c, run.c) set these options and ask for the
 * summary line, so they live apart from the pass interface.
 */
#ifndef KERNC_DIAG_H
#define KERNC_DIAG_H

#include <stdbool.h>
#include <stdio.h>

/* -fdiagnostics-color=auto|always|never */
typedef enum DiagColor { DIAG_COLOR_AUTO, DIAG_COLOR_ALWAYS, DIAG_COLOR_NEVER } DiagColor;

/* "auto", "always" or "never" (gcc also accepts "" for always); false for
 * anything else. */
bool diag_parse_color(const char *word, DiagColor *out);

/* Colour or not, decided once for stderr: always; never; auto = a terminal
 * that is not "dumb", and no NO_COLOR in the environment. */
void diag_set_color(DiagColor mode);
bool diag_color_enabled(void);

/* The warning options, as gcc's: -Werror (every warning an error), -Wall
 * and -Wextra (every warning on: they all are by default), -WNAME,
 * -Wno-NAME, -Werror=NAME, -Wno-error=NAME (NAME from KERNC_WARNINGS).
 * Returns 1 when arg is one of them (applied), 0 when arg is no -W option,
 * -1 when it names no warning (*hint is then "; did you mean ...?" or ""). */
int diag_warning_option(const char *arg, const char **hint);
/* The warnings and what they are about, for --help. */
void diag_list_warnings(FILE *out);

/* -w: warnings are neither printed nor counted (nor turned into errors by
 * -Werror), as gcc does; the notes that follow a dropped warning go too. */
extern bool diag_no_warnings;

int warning_count(void);

/* The closing count, as clang prints it: "2 errors generated.",
 * "1 warning and 1 error generated."; nothing when nothing was reported. */
void diag_summary(void);

/* "; did you mean '--header'?" for a misspelled option, from the options
 * a usage text lists (the words that start its lines with '-'); "" when
 * none is close.  The text before '=' of "--opt=value" is what is
 * compared, and the suggestion keeps the value. */
const char *diag_option_hint(const char *usage, const char *arg);

/* "kernc: error: " in the colour of errors, for the drivers' own messages. */
void diag_cli_prefix(FILE *out, const char *prog);

#endif /* KERNC_DIAG_H */
