/* SPDX-License-Identifier: MIT */
/* The tools' shared --version and refused-option messages. */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sp/tool.h"
#include "sp/version.h"

void
sp_tool_version(const char *tool)
{
	char text[512];

	if (sp_version_text(tool, text, sizeof(text)) < 0)
		exit(1);
	if (fputs(text, stdout) == EOF || fflush(stdout) != 0)
		exit(1);
	exit(0);
}

void
sp_tool_bad_option(const char *tool, int ch, char **argv)
{
	const char *what = ch == ':' ? "needs a value" : "is not known";
	const char *arg = optind > 0 ? argv[optind - 1] : NULL;

	/* A short option refused inside a cluster (-qZ): name the letter.
	 * A long one (optopt 0, or the whole word in argv): name the word
	 * up to any '='. */
	if (optopt != 0 && (arg == NULL || strncmp(arg, "--", 2) != 0))
		(void)fprintf(stderr, "%s: option '-%c' %s (see %s --help)\n",
		    tool, optopt, what, tool);
	else if (arg != NULL)
		(void)fprintf(stderr, "%s: option '%.*s' %s (see %s --help)\n",
		    tool, (int)strcspn(arg, "="), arg, what, tool);
	else
		(void)fprintf(stderr, "%s: bad option (see %s --help)\n", tool,
		    tool);
	exit(2);
}
