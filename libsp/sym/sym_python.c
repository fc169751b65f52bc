/* SPDX-License-Identifier: MIT */
/*
 * CPython's interpreter machinery: the C frames between two Python
 * frames (the eval loop, the call and vectorcall helpers) and the startup
 * chain under the first one.  A profile of a Python program shows them in
 * every stack; a UI hides them by default (SP_SYM_HIDDEN) and shows the
 * Python frames (from the perf map) and the C functions that do work.
 * Names as in CPython 3.8-3.13 (Python/ceval.c, Objects/call.c,
 * Objects/methodobject.c, Objects/funcobject.c, Modules/main.c,
 * Python/pythonrun.c), and 3.12's -X perf (Python/perf_trampoline.c:
 * py_trampoline_evaluator calls each Python function's trampoline, so it
 * stands between every two Python frames).
 */
#include <string.h>

#include "sp/sym/sym.h"

static const char *const machinery[] = {
	"_PyEval_EvalFrameDefault", "_PyEval_EvalFrame", "_PyEval_Vector",
	"PyEval_EvalCode", "PyEval_EvalCodeEx", "_PyEval_EvalCode",
	"_PyEval_EvalCodeWithName", "_PyFunction_Vectorcall",
	"PyObject_Call", "_PyObject_Call", "PyObject_CallObject",
	"PyObject_CallOneArg", "PyObject_CallNoArgs", "_PyObject_MakeTpCall",
	"_PyObject_Call_Prepend", "_PyObject_FastCallDictTstate",
	"cfunction_call", "slot_tp_call", "method_call", "run_mod",
	"run_eval_code_obj", "pyrun_file", "Py_RunMain", "Py_BytesMain",
	"Py_Main", "_Py_RunMain", "py_trampoline_evaluator",
};

static const char *const prefixes[] = {
	"pymain_", "PyRun_", "_PyRun_", "method_vectorcall",
	"cfunction_vectorcall", "_PyObject_Vectorcall", "PyObject_Vectorcall",
};

int
sp_sym_python_machinery(const char *name)
{
	size_t i, len;
	const char *dot;

	/* gcc's clones and split parts: name.cold, name.lto_priv.0... */
	dot = strchr(name, '.');
	len = dot != NULL ? (size_t)(dot - name) : strlen(name);
	for (i = 0; i < sizeof(machinery) / sizeof(machinery[0]); i++)
		if (strlen(machinery[i]) == len &&
		    memcmp(machinery[i], name, len) == 0)
			return 1;
	for (i = 0; i < sizeof(prefixes) / sizeof(prefixes[0]); i++)
		if (len >= strlen(prefixes[i]) &&
		    memcmp(prefixes[i], name, strlen(prefixes[i])) == 0)
			return 1;
	/* The vectorcall protocol's trampolines: *_vectorcall* (PEP 590). */
	return memmem(name, len, "_vectorcall", 11) != NULL;
}
