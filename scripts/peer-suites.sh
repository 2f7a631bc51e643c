#!/bin/bash
# peer-suites.sh - run the peers' own test suites through sonde, locally.
#
#   scripts/peer-suites.sh bpftrace CHECKOUT [-j N] [-g GROUP,...] [-n REGEX] [-k DIR] [-v] [-l]
#   scripts/peer-suites.sh flamegraph CHECKOUT [-k DIR] [-v]
#
# CHECKOUT is a copy of the peer's repository that the user brought (a git
# clone or an archive of it): bpftrace's (tests/runtime/ is read) or
# FlameGraph's (test/*.txt and test/results/ are read). Nothing is fetched:
# this needs no network, and neither the build nor `make test` runs it. It is
# a yardstick for issue 22, not a test of the project: sonde's own tests
# (tests/lang, tests/e2e) cover each behaviour it found.
#
# bpftrace: each test of tests/runtime/* (NAME, PROG or RUN, EXPECT*,
# TIMEOUT, AFTER, REQUIRES, ENV, WILL_FAIL, RETURN_CODE...) runs as bpftrace's
# own runner runs it, with `sonde probe` for {{BPFTRACE}} (sonde called through
# a symlink named bpftrace: the tests want that comm). The tests that need
# what this machine has not (kprobes, fentry, hardware events, watchpoints,
# USDT, the compiled test programs of tests/testprogs, DWARF) are left out and
# counted by reason; -v lists them. sonde prints bpftrace's
# __BPFTRACE_NOTIFY_PROBES_ATTACHED line when asked by that variable, which is
# when AFTER starts.
#
# flamegraph: test/*.txt x (pid tid kernel jit all addrs) through
# `sonde collapse --OPT`, compared with test/results/, or with the current
# stackcollapse-perf.pl's output where perl runs it and the results file
# predates the script (the java inputs' "-?" pid fields).
#
# Prints passed/total per group, the total, then each failure with a reason
# class. -l lists the tests chosen without running them. -k DIR keeps each test's command and output there. SONDE names the
# binary (default: build/sonde beside this script).
set -u
here=$(cd "$(dirname "$0")/.." && pwd)
SONDE=${SONDE:-$here/build/sonde}
[ $# -ge 2 ] || { sed -n '3,4p' "$0" | sed 's/^# *//' >&2; exit 2; }
suite=$1 checkout=$2
shift 2
[ -x "$SONDE" ] || { echo "peer-suites: no sonde binary at $SONDE (make first, or set SONDE)" >&2; exit 2; }
command -v python3 >/dev/null || { echo "peer-suites: needs python3" >&2; exit 2; }
export SONDE
exec python3 - "$suite" "$checkout" "$@" <<'PY'
import concurrent.futures, json, os, platform, re, shutil, signal, subprocess, sys, tempfile, time

SONDE = os.environ["SONDE"]
# bpftrace's tests expect the tracer's own comm to be "bpftrace" (comm,
# iter:task, comm from pid...): sonde runs under that name, through a symlink,
# so those tests judge the builtin rather than the binary's file name
BPFTRACE = SONDE
if sys.argv[1] == "bpftrace":
    linkdir = tempfile.mkdtemp(prefix="peer-suites.")
    BPFTRACE = os.path.join(linkdir, "bpftrace")
    os.symlink(os.path.abspath(SONDE), BPFTRACE)
    import atexit
    atexit.register(shutil.rmtree, linkdir, True)
suite, checkout = sys.argv[1], os.path.abspath(sys.argv[2])
args = sys.argv[3:]
jobs, groups, namere, keep, verbose, listonly = 1, None, None, None, False, False
while args:
    a = args.pop(0)
    if a == "-j": jobs = int(args.pop(0))
    elif a == "-g": groups = set(args.pop(0).split(","))
    elif a == "-n": namere = re.compile(args.pop(0))
    elif a == "-k": keep = os.path.abspath(args.pop(0))
    elif a == "-v": verbose = True
    elif a == "-l": listonly = True
    else: sys.exit("peer-suites: unknown option " + a)
if keep: os.makedirs(keep, exist_ok=True)

def keepfile(name, text):
    if keep:
        with open(os.path.join(keep, re.sub(r"[^\w.-]+", "_", name) + ".txt"), "w") as f:
            f.write(text)

# ---------------------------------------------------------------- bpftrace
class T:
    pass

def parse(path, group):
    """the blocks of one file: directives, continuation lines indented"""
    tests, block = [], []
    lines = open(path).read().split("\n")
    for i, line in enumerate(lines + [""]):
        if line.startswith("#"):
            continue
        if line.strip():
            block.append(line)
            continue
        if not block:
            continue
        t = T()
        t.group, t.name, t.prog, t.run = group, "", "", ""
        t.expects, t.after, t.setup, t.cleanup, t.timeout = [], "", "", "", 5
        t.requires, t.features, t.env, t.arch = [], [], {}, []
        t.will_fail, t.rc, t.befores, t.kmin, t.kmax, t.skipenv, t.ts = False, 0, [], "", "", None, -1
        last = None
        for l in block:
            key, val = (l.strip().split(None, 1) + [""])[:2]
            if last and l[:len(last) + 1].isspace():   # continues PROG or EXPECT
                more = l[len(last) + 1:]
                if last == "PROG": t.prog += "\n" + more; continue
                if last in ("EXPECT", "EXPECT_REGEX"): t.expects[-1][1] += "\n" + more; continue
            last = key
            if key == "NAME": t.name = val
            elif key == "PROG": t.prog = val
            elif key == "RUN": t.run = val
            elif key == "EXPECT": t.expects.append(["text", val])
            elif key == "EXPECT_NONE": t.expects.append(["text_none", val])
            elif key == "EXPECT_REGEX": t.expects.append(["regex", val])
            elif key == "EXPECT_REGEX_NONE": t.expects.append(["regex_none", val])
            elif key == "EXPECT_FILE": t.expects.append(["file", val])
            elif key == "EXPECT_JSON": t.expects.append(["json", val])
            elif key == "TIMEOUT": t.timeout = int(val)
            elif key == "BEFORE": t.befores.append(val)
            elif key == "AFTER": t.after = val
            elif key == "SETUP": t.setup = val
            elif key == "CLEANUP": t.cleanup = val
            elif key == "REQUIRES": t.requires.append(val)
            elif key == "REQUIRES_FEATURE": t.features += val.split()
            elif key == "ENV": t.env.update(kv.split("=", 1) for kv in val.split())
            elif key == "ARCH": t.arch = [x.strip() for x in val.split("|")]
            elif key == "WILL_FAIL": t.will_fail = True
            elif key == "RETURN_CODE": t.rc = int(val)
            elif key == "MIN_KERNEL": t.kmin = val
            elif key == "MAX_KERNEL": t.kmax = val
            elif key == "SKIP_IF_ENV_HAS": t.skipenv = val.split("=", 1)
            elif key == "LOCALIZE_TIMESTAMPS": t.ts = int(val)
            elif key == "NEW_PIDNS": t.befores.append("(new pid namespace)")
        block = []
        tests.append(t)
    return tests

# what this machine cannot give a test, whatever the tracer: why a test is left out
NEEDS = [
    (re.compile(r"testprogs/|testlibs/"), "test programs (tests/testprogs)"),
    (re.compile(r"\b(kprobes?|kretprobes?|kprobe_session|kfunc|kretfunc|fentry|fexit)\b|(^|[\s{},;/('])(k|kr|f|fr):"), "kprobes/fentry"),
    (re.compile(r"\bhardware\b|(^|[\s{},;/('])h:"), "hardware events"),
    (re.compile(r"\b(async)?watchpoint\b|(^|[\s{},;/('])a?w:"), "watchpoints"),
    (re.compile(r"\busdt\b|(^|[\s{},;/('])U:"), "USDT"),
]
NO_FEATURE = {"dwarf": "DWARF test programs", "dwunwind": "DWARF test programs", "kprobe_multi": "kprobes/fentry",
              "kprobe_session": "kprobes/fentry", "uprobe_multi": "test programs (tests/testprogs)",
              "get_func_ip": "kprobes/fentry", "blazesym": "blazesym", "aot": "AOT"}

def kver(s):
    return [int(x) for x in re.findall(r"\d+", s)[:3]]

def left_out(t, root):
    text = " ".join([t.prog, t.run, t.after, t.setup] + t.befores)
    for f in re.findall(r"runtime/\S+\.bt", t.run):    # a script's probes count too
        try:
            text += " " + open(os.path.join(root, f)).read()
        except OSError:
            pass
    for rx, why in NEEDS:
        if rx.search(text):
            return why
    for f in t.features:
        if f.lstrip("!") in NO_FEATURE and not f.startswith("!"):
            return NO_FEATURE[f]
    if t.befores:
        return "test programs (tests/testprogs)"
    if t.arch:
        m = platform.machine().lower()
        pos = [a for a in t.arch if not a.startswith("!")]
        if (pos and m not in pos) or ("!" + m) in t.arch:
            return "another architecture"
    k = kver(os.uname().release)
    if t.kmin and kver(t.kmin) > k: return "kernel too old"
    if t.kmax and kver(t.kmax) < k: return "kernel too new"
    if t.skipenv and os.environ.get(t.skipenv[0]) == t.skipenv[1]: return "environment"
    return None

def unmet(t, cwd):
    for r in t.requires:
        r = r.replace("{{BPFTRACE}}", BPFTRACE + " probe")
        if subprocess.call(r, shell=True, cwd=cwd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL):
            return "unmet REQUIRES: " + r
    return None

def command(t):
    if t.run:
        return t.run.replace("{{BPFTRACE}}", BPFTRACE + " probe")
    js = "-q -f json " if t.expects and t.expects[0][0] == "json" else ""
    return "%s probe %s-e '%s'" % (BPFTRACE, js, t.prog.replace("'", "'\\''"))

def check(t, mode, want, out, cwd):
    if mode == "text": return re.search(r"^\s*%s\s*$" % re.escape(want), out, re.M)
    if mode == "text_none": return not re.search(r"^\s*%s\s*$" % re.escape(want), out, re.M)
    if mode == "regex": return re.search(want, out, re.M)
    if mode == "regex_none": return not re.search(want, out, re.M)
    try:
        exp = open(os.path.join(cwd, want)).read()
    except OSError:
        return False
    if mode == "file":
        if t.ts >= 0:
            exp = time.strftime(exp, time.localtime(t.ts))
        return out.strip() == exp.strip()
    try:
        if want.endswith(".ndjson"):
            a, b = out.strip().splitlines(), exp.strip().splitlines()
            return len(a) == len(b) and all(json.loads(x) == json.loads(y) for x, y in zip(a, b))
        lines = out.strip().splitlines()
        return len(lines) == 1 and json.loads(lines[0]) == json.loads(exp)
    except ValueError:
        return False

def reason_of(t, out, rc, timed_out, failed):
    """a class and a detail: what went wrong first"""
    err = next((l for l in out.splitlines() if re.match(r"(sonde\S*: )?(error|ERROR|usage)", l)), "")
    if not err:
        err = next((l for l in out.splitlines() if re.search(r"[Ee]rror|unknown|cannot|not ", l)), "")
    if timed_out:
        return "timeout", err[:110]
    if rc != t.rc and not t.will_fail:
        return "exit %d" % rc, err[:110] or out.strip().splitlines()[-1][:110] if out.strip() else ""
    if t.will_fail and rc == 0:
        return "no error", failed and failed[0][1][:80] or ""
    m, w = failed[0]
    cls = {"json": "json output", "file": "output file"}.get(m, "output")
    return cls, (err[:110] if err else "%s %s" % (m, w.splitlines()[0][:90] if w else ""))

def run_test(t, cwd):
    why = unmet(t, cwd)
    if why:
        return "skip", why, ""
    cmd = command(t)
    env = {"PATH": os.environ.get("PATH", ""), "test": t.name, "__BPFTRACE_NOTIFY_PROBES_ATTACHED": "1"}
    env.update(t.env)
    log = "$ " + cmd + "\n"
    if t.setup and subprocess.call(t.setup, shell=True, cwd=cwd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL):
        return "fail", ("setup", t.setup), log
    exact = any(m in ("file", "json") for m, _ in t.expects)
    p = subprocess.Popen(cmd, shell=True, cwd=cwd, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                         start_new_session=True, errors="backslashreplace", text=True)
    out, after, timed_out = "", None, False
    deadline = time.time() + 10       # to attach, then TIMEOUT from there
    import selectors
    sel = selectors.DefaultSelector()
    sel.register(p.stdout, selectors.EVENT_READ)
    buf = ""
    fd = p.stdout.fileno()
    os.set_blocking(fd, False)
    while True:
        left = deadline - time.time()
        if left <= 0:
            timed_out = True
            break
        if not sel.select(timeout=min(left, 0.5)):
            continue
        chunk = os.read(fd, 65536)
        if not chunk:
            break
        buf += chunk.decode("utf-8", "backslashreplace")
        while "\n" in buf:
            line, buf = buf.split("\n", 1)
            if line == "__BPFTRACE_NOTIFY_PROBES_ATTACHED" and after is None:
                if exact:
                    out = ""
                deadline = time.time() + t.timeout
                after = subprocess.Popen(t.after, shell=True, cwd=cwd, start_new_session=True,
                                         stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL) if t.after else False
                continue
            out += line + "\n"
    if timed_out:
        try:
            os.killpg(p.pid, signal.SIGTERM)
        except ProcessLookupError:
            pass
        try:
            rest = p.communicate(timeout=2)[0] or ""
        except subprocess.TimeoutExpired:
            os.killpg(p.pid, signal.SIGKILL)
            rest = p.communicate()[0] or ""
        buf += rest
    else:
        p.wait()
    out += buf
    sel.close()
    if after:
        try:
            after.wait(timeout=2)
        except subprocess.TimeoutExpired:
            os.killpg(after.pid, signal.SIGKILL)
            after.wait()
    if t.cleanup:
        subprocess.call(t.cleanup, shell=True, cwd=cwd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    failed = [e for e in t.expects if not check(t, e[0], e[1], out, cwd)]
    log += out + "\n$ exit %s%s\n" % (p.returncode, " (timeout)" if timed_out else "")
    ok = not failed
    if not timed_out:
        if p.returncode != t.rc and not t.will_fail: ok = False
        if t.will_fail and p.returncode == 0: ok = False
    elif failed:
        ok = False
    if ok:
        return "pass", None, log
    return "fail", reason_of(t, out, p.returncode, timed_out and bool(failed), failed), log

def bpftrace():
    root = checkout
    if os.path.isdir(os.path.join(root, "tests", "runtime")):
        root = os.path.join(root, "tests")
    elif os.path.basename(root) == "runtime":
        root = os.path.dirname(root)
    rt = os.path.join(root, "runtime")
    if not os.path.isdir(rt):
        sys.exit("peer-suites: no tests/runtime in " + checkout)
    tests = []
    for g in sorted(os.listdir(rt)):
        p = os.path.join(rt, g)
        if g in ("engine", "scripts", "outputs") or g.startswith(".") or not os.path.isfile(p):
            continue
        tests += parse(p, g)
    total_all = len(tests)
    left, chosen = {}, []
    for t in tests:
        why = left_out(t, root)
        if why:
            left.setdefault(why, []).append(t)
        elif (not groups or t.group in groups) and (not namere or namere.search(t.group + "." + t.name)):
            chosen.append(t)
    if listonly:
        for why, ts in sorted(left.items(), key=lambda x: -len(x[1])):
            print("left out: %4d  %s" % (len(ts), why))
        for t in chosen:
            print("%s.%s" % (t.group, t.name))
        print("%d selected" % len(chosen))
        return
    results = {}
    # a test that signals every bpftrace (pkill bpftrace, pidof bpftrace) runs alone, after the others
    # and so does file-output: its tests write one fixed file, /tmp/bpftrace-file-output-test
    alone = [t for t in chosen if re.search(r"(pidof|pkill|killall|pgrep)\b[^;|]*\bbpftrace\b", t.after + t.setup + t.run)
             or t.group == "file-output"]
    for batch, n in ((([t for t in chosen if t not in alone]), jobs), (alone, 1)):
        with concurrent.futures.ThreadPoolExecutor(max_workers=n) as ex:
            futs = {ex.submit(run_test, t, root): t for t in batch}
            for f in concurrent.futures.as_completed(futs):
                t = futs[f]
                st, why, log = f.result()
                results[id(t)] = (st, why)
                keepfile(t.group + "." + t.name, log)
    per, fails, skips = {}, [], []
    for t in chosen:
        st, why = results[id(t)]
        g = per.setdefault(t.group, [0, 0])
        if st == "skip":
            skips.append((t, why)); continue
        g[1] += 1
        if st == "pass": g[0] += 1
        else: fails.append((t, why))
    print("bpftrace runtime tests: %d in all; %d left out (what this machine lacks):" % (total_all, sum(map(len, left.values()))))
    for why, ts in sorted(left.items(), key=lambda x: -len(x[1])):
        print("  %4d  %s" % (len(ts), why))
        if verbose:
            for t in ts: print("          %s.%s" % (t.group, t.name))
    for t, why in skips:
        print("  skip  %s.%s: %s" % (t.group, t.name, why))
    print()
    for g in sorted(per, key=lambda g: (-per[g][1], g)):
        print("%-16s %4d/%d" % (g, per[g][0], per[g][1]))
    npass, ntot = sum(v[0] for v in per.values()), sum(v[1] for v in per.values())
    print("%-16s %4d/%d" % ("TOTAL", npass, ntot))
    if fails:
        print("\nfailures (group.name  class  detail):")
        for t, (cls, detail) in fails:
            print("  %s.%s  [%s]  %s" % (t.group, t.name, cls, detail))

# ---------------------------------------------------------------- FlameGraph
def flamegraph():
    tdir = os.path.join(checkout, "test")
    inputs = sorted(f for f in os.listdir(tdir) if f.endswith(".txt")) if os.path.isdir(tdir) else []
    if not inputs:
        sys.exit("peer-suites: no test/*.txt in " + checkout)
    pl = os.path.join(checkout, "stackcollapse-perf.pl")
    perl = shutil.which("perl") if os.path.exists(pl) else None
    per, fails = {}, []
    for opt in ("pid", "tid", "kernel", "jit", "all", "addrs"):
        for f in inputs:
            src = os.path.join(tdir, f)
            res = os.path.join(tdir, "results", f[:-4] + "-collapsed-" + opt + ".txt")
            with open(src, "rb") as fin:
                r = subprocess.run([SONDE, "collapse", "--" + opt], stdin=fin, capture_output=True)
            want = [open(res, "rb").read()] if os.path.exists(res) else []
            if perl:
                want.append(subprocess.run([perl, pl, "--" + opt, src], capture_output=True).stdout)
            g = per.setdefault(opt, [0, 0])
            g[1] += 1
            keepfile("%s.%s" % (f[:-4], opt), r.stdout.decode("utf-8", "replace") + r.stderr.decode("utf-8", "replace"))
            if r.returncode == 0 and r.stdout in want:
                g[0] += 1
                continue
            if r.returncode:
                fails.append((f, opt, "exit %d" % r.returncode, r.stderr.decode("utf-8", "replace").strip()[:100]))
                continue
            got = r.stdout.decode("utf-8", "replace").splitlines()
            exp = want[-1].decode("utf-8", "replace").splitlines()
            miss, extra = set(exp) - set(got), set(got) - set(exp)
            fails.append((f, opt, "output", "%d/%d lines differ; expected e.g. %s" %
                          (len(miss), len(exp), (sorted(miss) or sorted(extra) or ["(order)"])[0][:120])))
    for opt in per:
        print("%-8s %3d/%d" % (opt, per[opt][0], per[opt][1]))
    print("%-8s %3d/%d" % ("TOTAL", sum(v[0] for v in per.values()), sum(v[1] for v in per.values())))
    if fails:
        print("\nfailures (input  option  class  detail):")
        for f, opt, cls, d in fails:
            print("  %s  --%s  [%s]  %s" % (f, opt, cls, d))

if suite == "bpftrace": bpftrace()
elif suite in ("flamegraph", "FlameGraph"): flamegraph()
else: sys.exit("peer-suites: the suites are bpftrace and flamegraph")
PY
