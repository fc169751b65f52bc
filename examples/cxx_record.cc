// SPDX-License-Identifier: MIT
//
// libstackpulse from C++: records a command into a spool (as examples/
// record.c does), reads the spool back with a Snapshot and names its
// stacks with a symbolizer, then prints the hottest leaf function.  The
// library's objects are held by std::unique_ptr with their _free call as
// the deleter, so that every path out of main releases them.
//
// usage: cxx_record OUT CMD [ARG...]
//
// Built by tests/cli/project/install.sh against the installed tree with
// g++ -std=c++17 -Wall -Wextra -Werror and pkg-config's flags alone.

#include <sp/stackpulse.h>   // every installed header

#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstring>
#include <map>
#include <memory>
#include <string>
#include <vector>

namespace {

template <class T, void (*Free)(T *)> struct freer {
	void operator()(T *p) const { Free(p); }
};
using recorder_ptr = std::unique_ptr<sp_recorder, freer<sp_recorder, sp_recorder_free>>;
using writer_ptr = std::unique_ptr<sp_writer, freer<sp_writer, sp_writer_free>>;
using snapshot_ptr = std::unique_ptr<sp_snapshot, freer<sp_snapshot, sp_snapshot_free>>;
using symbolizer_ptr = std::unique_ptr<sp_symbolizer, freer<sp_symbolizer, sp_symbolizer_free>>;

// The error as the library words it: the diagnostic's sentence when the
// call gave one, else the code's.
std::string why(const sp_diag &d, int err)
{
	return d.msg[0] != '\0' ? d.msg : sp_strerror(err);
}

// Records argv (a command) into the file out; prints the samples taken.
int record(const char *out, char **argv)
{
	int fd = open(out, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0) {
		std::perror(out);
		return 1;
	}
	sp_recorder_opts o{};    // 1 kHz, stack size as it goes
	o.sz = sizeof(o);        // the struct built with (sp/common/opts.h)
	o.command = argv[0];
	sp_diag d{};
	sp_header h;
	sp_writer *w = nullptr;
	sp_recorder *r = nullptr;
	pid_t child = 0;
	int err = sp_header_init_host(&h);
	if (err == 0)
		err = sp_writer_new(fd, &h, &w);
	writer_ptr wp(w);
	if (err == 0)
		err = sp_recorder_new(w, &o, &r, &d);
	recorder_ptr rp(r);
	if (err == 0)
		err = sp_recorder_spawn(r, argv, &child, &d);
	if (err != 0) {
		std::fprintf(stderr, "cxx_record: %s\n", why(d, err).c_str());
		(void)close(fd);
		return 1;
	}
	int status = 0;
	while (waitpid(child, &status, WNOHANG) == 0)
		if ((err = sp_recorder_poll(r, 100)) != 0) {
			std::fprintf(stderr, "cxx_record: writing %s: %s\n", out,
			    sp_strerror(err));
			(void)kill(child, SIGKILL);
			(void)waitpid(child, &status, 0);
			break;
		}
	if (err == 0)
		err = sp_recorder_finish(r);
	const sp_counter *c;
	size_t n = sp_recorder_counters(r, &c);
	for (size_t i = 0; i < n; i++)
		if (std::strcmp(c[i].name.s, "samples") == 0)
			std::printf("cxx_record: libstackpulse %s: %llu samples into %s\n",
			    sp_version(), static_cast<unsigned long long>(c[i].value), out);
	rp.reset();
	wp.reset();
	if (close(fd) != 0 && err == 0)
		err = -1;
	return err == 0 ? 0 : 1;
}

// Reads the spool path and prints its hottest leaf function, named by a
// symbolizer with the defaults.
int hottest(const char *path)
{
	sp_diag d{};
	sp_snapshot *s = nullptr;
	int err = sp_snapshot_open(path, &s, &d);
	snapshot_ptr sp(s);
	if (err != 0) {
		std::fprintf(stderr, "cxx_record: %s\n", why(d, err).c_str());
		return 1;
	}
	const sp_defs *defs = sp_snapshot_defs(s);
	// Samples per stack (a NODE id), then per leaf function.
	std::vector<size_t> per_stack(sp_defs_count(defs, SP_REC_NODE) + 1);
	const sp_sample *smp = sp_snapshot_samples(s);
	for (size_t i = 0; i < sp_snapshot_nsamples(s); i++)
		per_stack[smp[i].stack]++;
	sp_symbolizer *sym = nullptr;
	err = sp_symbolizer_new(defs, sp_snapshot_header(s), nullptr, nullptr, &sym);
	symbolizer_ptr symp(sym);
	std::map<std::string, size_t> per_leaf;
	for (uint32_t st = 1; err == 0 && st < per_stack.size(); st++) {
		sp_resolved_stack rs;
		if (per_stack[st] == 0 || (err = sp_symbolizer_resolve(sym, st, &rs)) != 0)
			continue;
		if (rs.n > 0)
			per_leaf[rs.frames[0].name] += per_stack[st];
	}
	if (err != 0) {
		std::fprintf(stderr, "cxx_record: %s: %s\n", path, sp_strerror(err));
		return 1;
	}
	auto top = per_leaf.cend();
	for (auto it = per_leaf.cbegin(); it != per_leaf.cend(); ++it)
		if (top == per_leaf.cend() || it->second > top->second)
			top = it;
	if (top == per_leaf.cend()) {
		std::printf("cxx_record: no samples in %s\n", path);
		return 1;
	}
	std::printf("cxx_record: hottest leaf %s, %zu samples\n", top->first.c_str(),
	    top->second);
	return 0;
}

} // namespace

int main(int argc, char **argv)
{
	if (argc < 3) {
		std::fprintf(stderr, "usage: cxx_record OUT CMD [ARG...]\n");
		return 2;
	}
	int rc = record(argv[1], argv + 2);
	return rc != 0 ? rc : hottest(argv[1]);
}
