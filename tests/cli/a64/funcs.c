/* SPDX-License-Identifier: MIT */
/*
 * Functions whose AArch64 code tests/cli/a64/leaf.sh checks the leaf
 * analysis against, at every instruction: each asks the compilers for a
 * frame form (no frame, locals, saved registers, calls, a large frame, a
 * variable-length array, a tail call, shrink-wrapping, a jump table,
 * loops, a call that does not return, floating-point saves).  ext() and
 * the others are left undefined: the shared object calls them through
 * its PLT.
 */
int ext(int);
int ext2(int, int);
void ext_buf(char *, int);
double extd(double);
void die(int) __attribute__((noreturn));

int
leaf(int x)
{
	return x * 3 + 1;
}

int
leaf_locals(int n)
{
	volatile int a[16];
	int i, s = 0;

	for (i = 0; i < 16; i++)
		a[i] = i * n;
	for (i = 0; i < 16; i++)
		s += a[i];
	return s;
}

int
calls(int x)
{
	return ext(x) + ext(x + 1);
}

int
saves(int a, int b, int c, int d)
{
	int x = ext(a), y = ext(b), z = ext(c), w = ext(d);

	return ext2(x + y, z - w) + a * b + c * d + x * w;
}

int
big_frame(int n)
{
	char buf[6000];

	ext_buf(buf, n);
	return buf[n & 63];
}

int
huge_frame(int n)
{
	char buf[70000];

	ext_buf(buf, n);
	return buf[n & 1023];
}

int
vla(int n)
{
	char a[n + 1];

	ext_buf(a, n);
	return a[0];
}

int
tail(int x)
{
	return ext(x * 2);
}

int
shrink(int x)
{
	if (x < 0)
		return 0;
	return ext(x) + 1;
}

int
table(int x)
{
	switch (x) {
	case 0: return 11;
	case 1: return 23;
	case 2: return 37;
	case 3: return 41;
	case 4: return 59;
	case 5: return 61;
	case 6: return 73;
	case 7: return 89;
	default: return -1;
	}
}

int
loop_calls(int n)
{
	int i, s = 0;

	for (i = 0; i < n; i++) {
		if (s > 1000)
			return s;
		s += ext(i);
	}
	return s;
}

int
checked(int x)
{
	if (x > 100)
		die(x);
	return ext(x) * 2;
}

double
fp_saves(double a, double b)
{
	double x = extd(a), y = extd(b), z = extd(a + b);

	return x * a + y * b + z * (a - b);
}

int
recurse(int n)
{
	if (n <= 1)
		return 1;
	return recurse(n - 1) + recurse(n - 2) + ext(n);
}
