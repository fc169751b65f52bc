/* SPDX-License-Identifier: MIT */
/*
 * The terminal of the full-screen views (sp/tool/screen.h): raw keys,
 * the alternate screen, escape sequences decoded, the size, and the
 * terminal given back on exit and on a signal.  The state is the file's
 * own (not a caller's struct), because atexit and a signal handler must
 * reach it: there is one terminal per process.
 */
#include <err.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <termios.h>
#include <unistd.h>

#include "sp/tool/screen.h"

/* xterm's: the alternate screen (1049) and the cursor (25), on and off. */
#define SCREEN_ON "\033[?1049h\033[?25l"
#define SCREEN_OFF "\033[?25h\033[?1049l"

/* How long the bytes after an ESC may take to come: a terminal writes a
 * key's sequence at once, so a lone ESC is the Escape key. */
#define SEQUENCE_MS 50

static struct termios saved;
static int keys_fd = -1, own_fd, raw, alt;
static int pending = -1;        /* a byte read ahead, for the next key */
static volatile sig_atomic_t stops, resizes;

/* With write(2) and tcsetattr(3) alone: a signal handler calls it too. */
static void
restore(void)
{
	if (alt) {
		alt = 0;
		(void)!write(STDOUT_FILENO, SCREEN_OFF, sizeof(SCREEN_OFF) - 1);
	}
	if (raw) {
		raw = 0;
		(void)tcsetattr(keys_fd, TCSANOW, &saved);
	}
}

void
spi_screen_close(void)
{
	(void)fflush(stdout);
	restore();
	if (own_fd) {
		(void)close(keys_fd);
		own_fd = 0;
	}
	keys_fd = -1;
}

void
spi_screen_open(int need_keys)
{
	struct termios t;

	keys_fd = STDIN_FILENO;
	if (!isatty(keys_fd)) {
		keys_fd = open("/dev/tty", O_RDWR | O_CLOEXEC | O_NOCTTY);
		if (keys_fd < 0 && need_keys)
			err(1, "no terminal to read keys from: /dev/tty");
		own_fd = keys_fd >= 0;
	}
	if (keys_fd >= 0 && tcgetattr(keys_fd, &saved) == 0) {
		t = saved;
		t.c_lflag &= ~(tcflag_t)(ICANON | ECHO);
		t.c_cc[VMIN] = 0;
		t.c_cc[VTIME] = 0;
		if (tcsetattr(keys_fd, TCSANOW, &t) == 0)
			raw = 1;
	}
	if (!raw && need_keys)
		errx(1, "no terminal to read keys from: its mode cannot be set");
	if (atexit(spi_screen_close) != 0)
		errx(1, "atexit failed");
	(void)fputs(SCREEN_ON, stdout);
	(void)fflush(stdout);
	alt = 1;
}

/* The next byte within ms (-1: no limit), SPI_KEY_NONE, or
 * SPI_KEY_GONE when the terminal hung up. */
static int
byte(int ms)
{
	struct pollfd p = { .fd = keys_fd, .events = POLLIN };
	unsigned char c;
	ssize_t n;

	if (pending >= 0) {
		n = pending;
		pending = -1;
		return (int)n;
	}
	if (!raw || poll(&p, 1, ms) <= 0)
		return SPI_KEY_NONE;
	if ((n = read(keys_fd, &c, 1)) == 1)
		return c;
	return n < 0 && (errno == EINTR || errno == EAGAIN) ? SPI_KEY_NONE :
	    SPI_KEY_GONE;
}

/* The key of a CSI or SS3 sequence, after its ESC [ or ESC O. */
static int
sequence(void)
{
	int c, n = 0;

	while ((c = byte(SEQUENCE_MS)) >= '0' && c <= '9')
		n = n * 10 + (c - '0');
	switch (c) {
	case 'A': return SPI_KEY_UP;
	case 'B': return SPI_KEY_DOWN;
	case 'C': return SPI_KEY_RIGHT;
	case 'D': return SPI_KEY_LEFT;
	case 'H': return SPI_KEY_HOME;
	case 'F': return SPI_KEY_END;
	case '~':
		/* vt220's: 1 and 7 Home, 4 and 8 End, 5 and 6 the pages. */
		return n == 5 ? SPI_KEY_PAGE_UP : n == 6 ? SPI_KEY_PAGE_DOWN :
		    n == 1 || n == 7 ? SPI_KEY_HOME : n == 4 || n == 8 ?
		    SPI_KEY_END : SPI_KEY_OTHER;
	default:
		/* Parameters with ';' (modifiers) and the rest: read to the
		 * final byte (0x40-0x7e, ECMA-48 5.4) and leave it. */
		while (c >= 0 && !(c >= 0x40 && c <= 0x7e))
			c = byte(SEQUENCE_MS);
		return SPI_KEY_OTHER;
	}
}

int
spi_screen_key(int timeout_ms)
{
	int c = byte(timeout_ms), d;

	if (c != 27)
		return c;
	if ((d = byte(SEQUENCE_MS)) < 0)
		return SPI_KEY_ESC;
	/* Escape twice, written at once: the second is a key of its own. */
	if (d == 27) {
		pending = d;
		return SPI_KEY_ESC;
	}
	return d == '[' || d == 'O' ? sequence() : SPI_KEY_OTHER;
}

void
spi_screen_size(int *rows, int *cols)
{
	struct winsize ws;

	*rows = 24;
	*cols = 80;
	if (ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) == 0 && ws.ws_row > 0 &&
	    ws.ws_col > 0) {
		*rows = ws.ws_row;
		*cols = ws.ws_col;
	}
}

void
spi_screen_vline(int cols, const char *fmt, va_list ap)
{
	char buf[1024];
	int n;

	/* A false report of clang-tidy's, as in sp_diag_set. */
	/* NOLINTNEXTLINE(clang-analyzer-valist.Uninitialized) */
	n = vsnprintf(buf, sizeof(buf), fmt, ap);
	if (n < 0)
		return;
	if (cols > 1 && (size_t)cols < sizeof(buf))
		buf[cols - 1] = '\0';
	(void)printf("%s\n", buf);
}

static void
on_signal(int sig)
{
	if (sig == SIGWINCH) {
		resizes = 1;
		return;
	}
	if (stops != 0) {
		restore();
		_exit(128 + sig);
	}
	stops = sig;
}

void
spi_screen_signals(void)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	(void)sigaction(SIGINT, &sa, NULL);
	(void)sigaction(SIGTERM, &sa, NULL);
	(void)sigaction(SIGWINCH, &sa, NULL);
}

int
spi_screen_stopped(void)
{
	return stops;
}

int
spi_screen_resized(void)
{
	int r = resizes;

	resizes = 0;
	return r;
}
