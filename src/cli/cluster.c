// SPDX-License-Identifier: GPL-2.0-only
/*
 * A command split into N shards and run elsewhere: printed as N shell
 * commands (--emit-jobs N, for a shell loop or GNU parallel), or written
 * as a Slurm job array with a merge job that depends on it (--emit-jobs N
 * --slurm DIR), and submitted through sbatch (--submit).
 *
 * Models nothing of the kernel.  Nothing here knows what a sweep is: a
 * command takes part when it runs one shard with `--shard I/N --csv PART`
 * and joins the N parts with `--merge N --csv FILE` (cmd-sweep.c does both).
 * So `struct cli_shards` is all a command gives: its name, its own
 * arguments, N and the merged CSV's name; sensitivity or any later
 * command that shards the same way reuses cli_shards_emit() and
 * cli_shards_slurm() as they are.
 *
 * The files --slurm DIR writes, all from one list of commands:
 *   DIR/jobs.txt      the N shard commands, line I is shard I (what
 *                     --emit-jobs N prints), for GNU parallel or a loop;
 *   DIR/array.sbatch  `#SBATCH --array=1-N`: task I runs line I of jobs.txt;
 *   DIR/merge.sbatch  the merge, submitted with --dependency=afterok:ARRAY;
 *   DIR/logs/         shard-I.out per task, merge.out.
 * Each job runs in the directory mmsim was run in (#SBATCH --chdir), so
 * the relative names of the command line mean the same on every node of
 * a shared file system.  A task that failed or was killed leaves its part
 * missing or short; the merge names it, and `sbatch --array=I
 * DIR/array.sbatch` reruns only it.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cli/cli_impl.h"

/* An argument as the shell reads it back. */
static void print_shell_word(FILE *f, const char *w)
{
	const char *p;
	bool plain = *w != '\0';

	for (p = w; *p; p++)
		if (!strchr("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
			    "0123456789_./=,:+@%-", *p))
			plain = false;
	if (plain) {
		fputs(w, f);
		return;
	}
	fputc('\'', f);
	for (p = w; *p; p++)
		if (*p == '\'')
			fputs("'\\''", f);
		else
			fputc(*p, f);
	fputc('\'', f);
}

/*
 * Options left out of a shard's or the merge's command: they choose what
 * this invocation does, not what the command computes.  *@takes_value:
 * the option's value is the next argument.
 */
static bool shard_drops(const char *arg, bool *takes_value)
{
	static const struct {
		const char *name;
		bool value;
	} drop[] = {
		{ "--emit-jobs", true }, { "--csv", true }, { "--plot", true },
		{ "--shard", true }, { "--merge", true }, { "--slurm", true },
		{ "--submit", false },
	};
	size_t i;

	for (i = 0; i < sizeof(drop) / sizeof(drop[0]); i++) {
		size_t n = strlen(drop[i].name);

		if (!strncmp(arg, drop[i].name, n) && (!arg[n] || arg[n] == '=')) {
			*takes_value = drop[i].value && !arg[n];
			return true;
		}
	}
	return false;
}

/* "PROG CMD ARGS..." without the dropped options, no newline. */
static void print_command(FILE *f, const struct cli *c, const struct cli_shards *sh)
{
	int k;

	print_shell_word(f, c->prog ? c->prog : "mmsim");
	fputc(' ', f);
	print_shell_word(f, sh->cmd);
	for (k = 1; k < sh->argc; k++) {
		bool takes;

		if (shard_drops(sh->argv[k], &takes)) {
			k += takes;
			continue;
		}
		fputc(' ', f);
		print_shell_word(f, sh->argv[k]);
	}
}

/**
 * cli_shard_part() - the CSV of shard @i of @n
 * @base: the merged CSV's name, e.g. "sl.csv"
 * @i: the shard, 1..@n
 * @n: shards
 * @buf: the result, e.g. "sl.part-03-of-12.csv" (@i zero-padded to the
 *	width of @n, so that a shell glob lists the parts in order)
 * @len: size of @buf
 */
void cli_shard_part(const char *base, uint64_t i, uint64_t n, char *buf, size_t len)
{
	char part[64];
	int width = snprintf(NULL, 0, "%" PRIu64, n);

	snprintf(part, sizeof(part), "part-%0*" PRIu64 "-of-%" PRIu64, width, i, n);
	cli_path_insert(base, part, buf, len);
}

/**
 * cli_shards_emit() - print the @sh->n shard commands, one per line
 * @c: the invocation (c->prog is the first word of every line)
 * @f: where to print them
 * @sh: the command and its shards
 *
 * Line I is the command with `--shard I/N --csv PART` (cli_shard_part()).
 *
 * Return: 0, or 1 with c->msg set when writing failed.
 */
int cli_shards_emit(struct cli *c, FILE *f, const struct cli_shards *sh)
{
	char name[PATH_MAX + 64];
	uint64_t i;

	for (i = 1; i <= sh->n; i++) {
		cli_shard_part(sh->base, i, sh->n, name, sizeof(name));
		print_command(f, c, sh);
		fprintf(f, " --shard %" PRIu64 "/%" PRIu64 " --csv ", i, sh->n);
		print_shell_word(f, name);
		fputc('\n', f);
	}
	return ferror(f) ? cli_fail(c, "writing the shard commands failed") - 1 : 0;
}

/* A path that an #SBATCH line can carry: sbatch does not unquote there. */
static bool sbatch_plain(const char *path)
{
	return !strpbrk(path, " \t\n'\"\\$`%");
}

/* Write DIR/@name through @fill, then give it @mode.  Returns 0, or 2 with c->msg set. */
static int write_file(struct cli *c, const char *dir, const char *name, mode_t mode,
		      void (*fill)(FILE *f, struct cli *c, const struct cli_shards *sh,
				   const char *dir, const char *cwd),
		      const struct cli_shards *sh, const char *cwd)
{
	char path[PATH_MAX + 64];
	FILE *f;
	int bad;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "w");
	if (!f)
		return cli_fail(c, "--slurm %s: cannot write %s (%s)", dir, path, strerror(errno));
	fill(f, c, sh, dir, cwd);
	bad = ferror(f);
	if (fclose(f) || bad)
		return cli_fail(c, "--slurm %s: writing %s failed", dir, path);
	if (chmod(path, mode))
		return cli_fail(c, "--slurm %s: cannot chmod %s (%s)", dir, path, strerror(errno));
	return 0;
}

static void fill_jobs(FILE *f, struct cli *c, const struct cli_shards *sh,
		      const char *dir, const char *cwd)
{
	(void)dir;
	(void)cwd;
	cli_shards_emit(c, f, sh);
}

static void fill_array(FILE *f, struct cli *c, const struct cli_shards *sh,
		       const char *dir, const char *cwd)
{
	fprintf(f, "#!/bin/bash\n"
		"# One array task per shard: task I runs line I of jobs.txt beside this\n"
		"# file, writing its part of the merged CSV.  Written by mmsim %s:\n#   ",
		MMSIM_VERSION);
	print_command(f, c, sh);
	fputs(" --csv ", f);
	print_shell_word(f, sh->base);
	fprintf(f, " --emit-jobs %" PRIu64 " --slurm ", sh->n);
	print_shell_word(f, dir);
	fprintf(f, "\n# Rerun only shard I: sbatch --array=I %s/array.sbatch\n", dir);
	fprintf(f, "#SBATCH --job-name=mmsim-%s\n", sh->name);
	fprintf(f, "#SBATCH --array=1-%" PRIu64 "\n", sh->n);
	fprintf(f, "#SBATCH --ntasks=1\n#SBATCH --cpus-per-task=%" PRIu64 "\n", sh->cpus);
	fprintf(f, "#SBATCH --chdir=%s\n", cwd);
	fprintf(f, "#SBATCH --output=%s/logs/shard-%%a.out\n", dir);
	fprintf(f, "set -u\n"
		"line=$(sed -n \"${SLURM_ARRAY_TASK_ID}p\" ");
	print_shell_word(f, dir);
	fprintf(f, "/jobs.txt)\n"
		"if [ -z \"$line\" ]; then\n"
		"\techo \"mmsim: no shard $SLURM_ARRAY_TASK_ID in %s/jobs.txt\" >&2\n"
		"\texit 2\n"
		"fi\n"
		"echo \"shard $SLURM_ARRAY_TASK_ID of %" PRIu64 " on $(hostname): $line\"\n"
		"eval \"$line\"\n", dir, sh->n);
}

static void fill_merge(FILE *f, struct cli *c, const struct cli_shards *sh,
		       const char *dir, const char *cwd)
{
	fprintf(f, "#!/bin/bash\n"
		"# The merge of the %" PRIu64 " parts into one CSV, after every array task\n"
		"# succeeded: sbatch --dependency=afterok:ARRAY_JOB %s/merge.sbatch.\n"
		"# It names any shard whose part is missing or short, and its runs.\n",
		sh->n, dir);
	fprintf(f, "#SBATCH --job-name=mmsim-%s-merge\n", sh->name);
	fprintf(f, "#SBATCH --ntasks=1\n#SBATCH --cpus-per-task=1\n");
	fprintf(f, "#SBATCH --chdir=%s\n", cwd);
	fprintf(f, "#SBATCH --output=%s/logs/merge.out\n", dir);
	print_command(f, c, sh);
	fprintf(f, " --merge %" PRIu64 " --csv ", sh->n);
	print_shell_word(f, sh->base);
	fputc('\n', f);
}

/*
 * Run sbatch with @args (NULL-terminated, args[0] is "sbatch") and read
 * the job id that --parsable prints ("ID" or "ID;CLUSTER") into @id.
 * sbatch's own errors go to our standard error.  The program is
 * $MMSIM_SBATCH if set, else sbatch on the PATH.
 * Returns 0, 2 when it cannot be started, 1 when it failed.
 */
static int run_sbatch(struct cli *c, char **args, char *id, size_t len)
{
	const char *script = args[0];
	const char *prog = getenv("MMSIM_SBATCH");
	char buf[256];
	size_t n = 0;
	ssize_t r;
	int p[2], status, exec_err[2], err = 0;
	pid_t pid;

	if (!prog || !*prog)
		prog = "sbatch";
	for (n = 0; args[n]; n++)
		script = args[n];
	n = 0;
	if (pipe(p))
		return cli_fail(c, "--submit: cannot make a pipe (%s)", strerror(errno)) - 1;
	if (pipe(exec_err)) {
		close(p[0]);
		close(p[1]);
		return cli_fail(c, "--submit: cannot make a pipe (%s)", strerror(errno)) - 1;
	}
	fcntl(exec_err[1], F_SETFD, FD_CLOEXEC);
	fflush(NULL);
	pid = fork();
	if (pid < 0) {
		close(p[0]);
		close(p[1]);
		close(exec_err[0]);
		close(exec_err[1]);
		return cli_fail(c, "--submit: cannot start a process (%s)", strerror(errno)) - 1;
	}
	if (!pid) {
		int e;

		close(p[0]);
		close(exec_err[0]);
		dup2(p[1], STDOUT_FILENO);
		close(p[1]);
		execvp(prog, args);
		e = errno;
		if (write(exec_err[1], &e, sizeof(e)) < 0)
			_exit(127);
		_exit(127);
	}
	close(p[1]);
	close(exec_err[1]);
	while ((r = read(p[0], buf + n, sizeof(buf) - 1 - n)) != 0) {
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0)
			break;
		n += (size_t)r;
		if (n == sizeof(buf) - 1)
			break;
	}
	buf[n] = '\0';
	close(p[0]);
	if (read(exec_err[0], &err, sizeof(err)) != sizeof(err))
		err = 0;
	close(exec_err[0]);
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	if (err)
		return cli_fail(c, "--submit: cannot run %s (%s): expected Slurm's sbatch on the PATH, or MMSIM_SBATCH",
				prog, strerror(err));
	if (!WIFEXITED(status) || WEXITSTATUS(status))
		return cli_fail(c, "--submit: %s %s failed (status %d); the files are written, submit them by hand",
				prog, script,
				WIFEXITED(status) ? WEXITSTATUS(status) : -1) - 1;
	n = strspn(buf, "0123456789");
	if (!n || n >= len)
		return cli_fail(c, "--submit: %s printed no job id (\"%.40s\")", prog, buf) - 1;
	memcpy(id, buf, n);
	id[n] = '\0';
	return 0;
}

/**
 * cli_shards_slurm() - write a Slurm job array for @sh into @dir, and submit it
 * @c: the invocation
 * @sh: the command and its shards
 * @dir: the directory for jobs.txt, array.sbatch, merge.sbatch and logs/
 *	(made if missing; the files in it are replaced)
 * @submit: also submit: `sbatch --parsable DIR/array.sbatch`, then the
 *	merge with --dependency=afterok:ARRAY --kill-on-invalid-dep=yes (so
 *	that a failed array removes the merge instead of leaving it pending)
 *
 * Prints to c->out the files written and how to submit them, or with
 * @submit the two job ids: "array ID" and "merge ID" lines.
 *
 * Context: the host process; with @submit, forks sbatch twice.
 * Return: 0; 2 for a directory that cannot be made or written, or no
 * sbatch to run; 1 when sbatch failed.  c->msg is set.
 */
int cli_shards_slurm(struct cli *c, const struct cli_shards *sh, const char *dir,
		     bool submit)
{
	char abs[PATH_MAX], cwd[PATH_MAX], logs[PATH_MAX + 8];
	char path_a[PATH_MAX + 16], path_m[PATH_MAX + 16], dep[64];
	char id_a[32], id_m[32];
	int ret;

	if (mkdir(dir, 0755) && errno != EEXIST)
		return cli_fail(c, "--slurm %s: cannot make the directory (%s)", dir,
				strerror(errno));
	if (!realpath(dir, abs))
		return cli_fail(c, "--slurm %s: cannot resolve it (%s)", dir, strerror(errno));
	if (!getcwd(cwd, sizeof(cwd)))
		return cli_fail(c, "--slurm %s: cannot read the working directory (%s)", dir,
				strerror(errno));
	if (!sbatch_plain(abs) || !sbatch_plain(cwd))
		return cli_fail(c, "--slurm %s: %s has a space, quote, $ or %%: expected a plain path (an #SBATCH line cannot quote it)",
				dir, sbatch_plain(abs) ? cwd : abs);
	snprintf(logs, sizeof(logs), "%s/logs", abs);
	if (mkdir(logs, 0755) && errno != EEXIST)
		return cli_fail(c, "--slurm %s: cannot make %s (%s)", dir, logs, strerror(errno));
	ret = write_file(c, abs, "jobs.txt", 0644, fill_jobs, sh, cwd);
	if (!ret)
		ret = write_file(c, abs, "array.sbatch", 0755, fill_array, sh, cwd);
	if (!ret)
		ret = write_file(c, abs, "merge.sbatch", 0755, fill_merge, sh, cwd);
	if (ret)
		return ret;
	snprintf(path_a, sizeof(path_a), "%s/array.sbatch", abs);
	snprintf(path_m, sizeof(path_m), "%s/merge.sbatch", abs);
	if (!submit) {
		fprintf(c->out, "wrote %s/jobs.txt (%" PRIu64 " shard commands), %s, %s\n"
			"submit: jid=$(sbatch --parsable %s) && "
			"sbatch --dependency=afterok:$jid --kill-on-invalid-dep=yes %s\n"
			"or here: parallel -j 2 < %s/jobs.txt && bash %s\n",
			abs, sh->n, path_a, path_m, path_a, path_m, abs, path_m);
	} else {
		char *args_a[] = { "sbatch", "--parsable", path_a, NULL };
		char *args_m[] = { "sbatch", "--parsable", dep, "--kill-on-invalid-dep=yes",
				   path_m, NULL };

		ret = run_sbatch(c, args_a, id_a, sizeof(id_a));
		if (ret)
			return ret;
		snprintf(dep, sizeof(dep), "--dependency=afterok:%s", id_a);
		ret = run_sbatch(c, args_m, id_m, sizeof(id_m));
		if (ret)
			return ret;
		fprintf(c->out, "array %s\nmerge %s\n", id_a, id_m);
	}
	fflush(c->out);
	return ferror(c->out) ? cli_fail(c, "writing to standard output failed") - 1 : 0;
}

/**
 * cli_shards_check() - the options that choose where shards run, checked together
 * @c: the invocation
 * @a: the parsed options
 *
 * --slurm needs --emit-jobs (the number of array tasks); --submit needs
 * --slurm; --merge goes with neither --shard nor --emit-jobs; a shard's
 * part needs a file name, so --csv - goes with none of them.
 *
 * Return: 0, or 2 with c->msg set.
 */
int cli_shards_check(struct cli *c, const struct plan_args *a)
{
	if (a->slurm && !a->emit_jobs)
		return cli_fail(c, "--slurm %s: expected --emit-jobs N with it, the number of array tasks",
				a->slurm);
	if (a->submit && !a->slurm)
		return cli_fail(c, "--submit: expected --slurm DIR with it");
	if (a->merge_n && (a->emit_jobs || a->shard_n))
		return cli_fail(c, "--merge %" PRIu64 " with %s: expected one of them", a->merge_n,
				a->emit_jobs ? "--emit-jobs" : "--shard");
	if (a->merge_n && a->plot)
		return cli_fail(c, "--merge %" PRIu64 " with --plot %s: expected --plot on a sweep that runs",
				a->merge_n, a->plot);
	if ((a->merge_n || a->emit_jobs) && a->csv && !strcmp(a->csv, "-"))
		return cli_fail(c, "%s %" PRIu64 " with --csv -: expected --csv FILE, the name of the merged CSV",
				a->merge_n ? "--merge" : "--emit-jobs",
				a->merge_n ? a->merge_n : a->emit_jobs);
	return 0;
}
