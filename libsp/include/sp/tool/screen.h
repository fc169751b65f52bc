/* SPDX-License-Identifier: MIT */
#ifndef SP_TOOL_SCREEN_H
#define SP_TOOL_SCREEN_H

/*
 * The terminal of the tools' full-screen views (sp-top's, sp-report -i's),
 * for their main() only: like sp/tool/tool.h these print and exit, and
 * the header is not installed.  One terminal per process: its saved
 * state is the file's own, so that exit and a signal can restore it.
 */

#include <stdarg.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Keys past a byte's range, decoded from the terminal's escape
 * sequences (ECMA-48 CSI and SS3: ESC [ A, ESC O A, ESC [ 5 ~...). */
enum spi_key {
	SPI_KEY_GONE = -2,      /* the terminal hung up: no key will come */
	SPI_KEY_NONE = -1,      /* none came (or a signal came first) */
	SPI_KEY_ESC = 27,       /* Escape alone */
	SPI_KEY_UP = 0x100,
	SPI_KEY_DOWN,
	SPI_KEY_LEFT,
	SPI_KEY_RIGHT,
	SPI_KEY_PAGE_UP,
	SPI_KEY_PAGE_DOWN,
	SPI_KEY_HOME,
	SPI_KEY_END,
	SPI_KEY_OTHER,          /* a sequence with no meaning here */
};

/*
 * Takes the terminal: keys arrive without Enter or echo (signals keep
 * their keys: Ctrl-C is still SIGINT), the view goes to the alternate
 * screen, the cursor is hidden, and spi_screen_close is registered with
 * atexit.  Keys are read from standard input when it is a terminal, else
 * from /dev/tty (a spool piped in); with need_keys and no terminal to
 * read them from, prints why and exits 1.  Exits 1 if atexit fails.
 */
void spi_screen_open(int need_keys);

/* Gives the terminal back as spi_screen_open found it (again: nothing). */
void spi_screen_close(void);

/*
 * The next key: a byte, or an spi_key.  Waits up to timeout_ms (-1:
 * until a key, or a signal, comes).  SPI_KEY_NONE when none came, a
 * signal came, or there is no terminal to read; SPI_KEY_GONE when the
 * terminal hung up.
 */
int spi_screen_key(int timeout_ms);

/* The terminal's size (standard output's), 24 by 80 if it has none. */
void spi_screen_size(int *rows, int *cols);

/*
 * Prints a line and its newline; with cols > 1 cut to cols - 1 columns,
 * so that no line wraps (the last column would move the cursor on).
 */
void spi_screen_vline(int cols, const char *fmt, va_list ap)
    __attribute__((format(printf, 2, 0)));

/*
 * SIGINT, SIGTERM and SIGWINCH set flags that these read and clear (no
 * SA_RESTART: a wait for a key returns at once).  A second SIGINT or
 * SIGTERM before the first was acted on ends the process with the
 * terminal given back (status 128 + the signal, as a shell reports it).
 */
void spi_screen_signals(void);
int spi_screen_stopped(void);   /* the SIGINT or SIGTERM that came, or 0 */
int spi_screen_resized(void);   /* a SIGWINCH came since the last call */

#ifdef __cplusplus
}
#endif

#endif
