# gst-cudasync
# Copyright (C) 2026 gst-cudasync developers
# SPDX-License-Identifier: LGPL-2.1-or-later
"""Fault-injection suite (run-faults.py): runs one case (a pipeline with
one driver call failing) and classifies the run."""

import os
import re
import resource
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time

from fault_cases import (CAPS, DESTROY_KIND, FRAME_SIZE, HEIGHT, KNOWN,
                         RELINK_MARKS, TIMEOUT, WIDTH, Result)


class Suite:
    def __init__(self, args):
        self.args = args
        self.tmp = tempfile.mkdtemp(prefix="cudasync-fault-")
        self.ref_path = os.path.join(self.tmp, "reference.raw")
        self.uuid = None
        self.start = time.monotonic()
        self.lock = threading.Lock()
        env = {k: v for k, v in os.environ.items()
               if not k.startswith("CUDASIM_")}
        env["LD_LIBRARY_PATH"] = args.cudasim_dir + (
            ":" + env["LD_LIBRARY_PATH"] if env.get("LD_LIBRARY_PATH") else "")
        env["GST_PLUGIN_PATH"] = args.plugin_dir
        env["GST_REGISTRY"] = args.registry
        env["CUDASIM_STATS"] = "1"
        env["CUDASIM_VIOLATIONS"] = "record"
        env["CUDASIM_VERBOSE"] = "1"
        # warnings name the code that saw the failure (attribution only)
        env["GST_DEBUG"] = "2"
        env["GST_DEBUG_NO_COLOR"] = "1"
        self.env = env

    # ---- pipelines ----

    def command(self, pipeline, out_path, frames=None):
        a = self.args
        frames = frames or a.frames
        geom = ["--frames", str(frames)]
        if frames == a.frames:
            geom += ["--width", str(WIDTH), "--height", str(HEIGHT)]
        if pipeline == "semaphore":
            return [a.demo] + geom, {}
        if pipeline == "bridge":
            return [a.demo, "--bridge"] + geom, {}
        src = ("videotestsrc num-buffers=%d pattern=ball ! %s"
               % (frames, CAPS)).split()
        sink = ("video/x-raw,format=NV12 ! filesink location=%s"
                % out_path).split()
        if pipeline == "vk2cuda":
            mid = "vulkanupload ! vulkantocuda ! queue ! cudadownload".split()
            return ([a.gst_launch] + src + ["!"] + mid + ["!"] + sink,
                    {"CUDASIM_DEVICE_UUID": self.uuid})
        if pipeline == "vk2cuda-nodl":
            mid = "vulkanupload ! vulkantocuda ! fakesink".split()
            return ([a.gst_launch] + src + ["!"] + mid,
                    {"CUDASIM_DEVICE_UUID": self.uuid})
        if pipeline == "fallback":
            mid = ("cudaupload ! cudasemsignal fallback=sync ! cudasemwait ! "
                   "cudadownload").split()
            return [a.gst_launch] + src + ["!"] + mid + ["!"] + sink, {}
        raise ValueError(pipeline)

    def execute(self, argv, extra_env):
        env = dict(self.env)
        env.update(extra_env)

        def limits():
            resource.setrlimit(resource.RLIMIT_CORE, (0, 0))

        t0 = time.monotonic()
        p = subprocess.Popen(argv, env=env, stdout=subprocess.PIPE,
                             stderr=subprocess.STDOUT, start_new_session=True,
                             preexec_fn=limits)
        try:
            out, _ = p.communicate(timeout=TIMEOUT)
            rc = p.returncode
        except subprocess.TimeoutExpired:
            self.print_backtraces(p.pid, argv, extra_env)
            os.killpg(p.pid, signal.SIGKILL)
            out, _ = p.communicate()
            rc = None
        return rc, out.decode("utf-8", "replace"), time.monotonic() - t0

    @staticmethod
    def print_backtraces(pid, argv, extra_env):
        """A hung run: every thread's stack, where gdb can attach, so that
        a rare hang can be diagnosed from the log of the run that saw it"""
        gdb = shutil.which("gdb")
        print("hang: %s %s" % (" ".join("%s=%s" % kv for kv in
                                        sorted(extra_env.items())),
                               " ".join(argv)), file=sys.stderr)
        if not gdb:
            print("hang: no gdb, no backtrace", file=sys.stderr)
            return
        try:
            bt = subprocess.run([gdb, "-q", "-batch", "-p", str(pid), "-ex",
                                 "thread apply all bt 25"],
                                stdout=subprocess.PIPE,
                                stderr=subprocess.STDOUT, timeout=60)
            print(bt.stdout.decode("utf-8", "replace"), file=sys.stderr)
        except (subprocess.TimeoutExpired, OSError) as e:
            print("hang: gdb failed: %s" % e, file=sys.stderr)

    def run_case(self, case):
        out_path = os.path.join(self.tmp, "out-%d.raw" % id(case))
        argv, extra = self.command(case.pipeline, out_path, case.frames)
        extra.update(case.env())
        for attempt in range(5):
            if os.path.exists(out_path):
                os.unlink(out_path)
            rc, out, secs = self.execute(argv, extra)
            if any(m in out for m in RELINK_MARKS):
                time.sleep(3)
                continue
            break
        r = Result()
        r.output = out
        r.seconds = secs
        self.classify(case, rc, out, out_path, r)
        if os.path.exists(out_path):
            os.unlink(out_path)
        return r

    # ---- classification ----

    def compare_file(self, path, frames):
        """(frames written, frames identical, first differing frame)"""
        with open(self.ref_path, "rb") as f:
            ref = f.read()
        ref = ref[:FRAME_SIZE * frames]     # it has max_frames() frames
        try:
            with open(path, "rb") as f:
                got = f.read()
        except OSError:
            got = b""
        n = len(got) // FRAME_SIZE
        same, first_bad = 0, None
        for i in range(min(n, len(ref) // FRAME_SIZE)):
            s = slice(i * FRAME_SIZE, (i + 1) * FRAME_SIZE)
            if got[s] == ref[s]:
                same += 1
            elif first_bad is None:
                first_bad = i
        if len(got) % FRAME_SIZE and first_bad is None:
            first_bad = n
        return n, same, first_bad

    def classify(self, case, rc, out, out_path, r):
        """Sets r.kind (None: acceptable), r.outcome, r.detail and r.notes
        from a run's exit status, output and output file."""
        frames = case.frames or self.args.frames
        lines = out.splitlines()
        stats, violations = self.scan_output(lines, r)

        if rc is None:
            r.kind, r.detail = "hang", "no exit within %d s (killed)" % TIMEOUT
            return
        if rc < 0:
            sig = signal.Signals(-rc).name if -rc in signal.Signals._value2member_map_ else str(-rc)
            tail = [l for l in lines if not l.startswith("cudasim: ")][-3:]
            r.kind = "crash"
            r.detail = "killed by %s; last output: %s" % (
                sig, " | ".join(t.strip() for t in tail))
            return

        if case.pipeline in ("semaphore", "bridge"):
            verdict = self.demo_verdict(rc, lines, frames, r)
        else:
            verdict = self.launch_verdict(case, rc, out, out_path, lines,
                                          frames, r)
        if verdict is None:
            return
        error, completed, n_frames, n_same, first_bad = verdict

        if completed:
            if n_same != frames or n_frames != frames:
                r.kind = "silent corruption"
                r.detail = ("completed without an error, but %d of %d frames "
                            "identical (%d delivered%s)" % (
                                n_same, frames, n_frames,
                                ", first bad: %d" % first_bad
                                if first_bad is not None else ""))
                return
        elif r.outcome != "app-error":
            r.outcome = "error"
            r.detail = error
            if first_bad is not None:
                r.notes.append("frame %d delivered wrong before the error"
                               % first_bad)
        if r.outcome in ("error", "app-error"):
            text = r.detail or ""
            r.names_failure = bool(case.entry_base in text or
                                   (case.code or "CUDA_ERROR_UNKNOWN") in text
                                   or "unknown error" in text)

        self.check_health(case, rc, stats, violations, r)

    @staticmethod
    def scan_output(lines, r):
        """The simulator's lines: call counts and injected failures (into
        r), its statistics and violations (returned), GLib criticals (a
        note)."""
        for line in lines:
            m = re.match(r"cudasim: calls:(.*)$", line)
            if m:
                for tok in m.group(1).split():
                    k, _, v = tok.partition("=")
                    r.calls[k] = r.calls.get(k, 0) + int(v)
        r.injected = any(l.startswith("cudasim: injected failure:")
                         for l in lines)
        stats = [re.match(r"cudasim: cpu syncs=\d+ violations=(\d+) live: "
                          r"(.*)$", l) for l in lines]
        stats = [m for m in stats if m]
        violations = [l.split("VIOLATION (recorded): ", 1)[1] for l in lines
                      if "VIOLATION (recorded): " in l]
        criticals = [l.strip() for l in lines
                     if "-CRITICAL **" in l or "-WARNING **" in l]
        if criticals:
            r.notes.append("GLib: " + criticals[0][:200])
        return stats, violations

    @staticmethod
    def demo_verdict(rc, lines, frames, r):
        """gst-cudasync-demo's output: (error, completed, frames written,
        frames identical, first bad frame), or None once r.kind says what
        went wrong."""
        error = None
        completed = False
        n_frames = n_same = 0
        first_bad = None
        setup = None
        for l in lines:
            m = re.match(r"FAIL: (?:CUDA|bridge) pipeline: (.*)$", l)
            if m:
                error = m.group(1)
            elif (l.startswith("FAIL: ") and setup is None and
                  error is None and "frames" not in l and
                  "signalled" not in l and "waited" not in l and
                  "semaphore is at" not in l and "copy per frame" not in l
                  and "neither every frame" not in l and
                  "CPU fallback ran" not in l and
                  "synchronised on the CPU" not in l):
                setup = l[6:]
        m = None
        for l in lines:
            m = re.match(r"checksums: (\d+)/(\d+) frames identical", l) or m
        mf = None
        for l in lines:
            mf = re.match(r"\s+frames\s+: (\d+) \(reference (\d+)\)", l) or mf
        if error and error.startswith("could not build") and m is None:
            pass        # the demo returned before comparing
        elif setup is not None and error is None and m is None:
            r.outcome = "app-error"
            r.detail = setup
            if "reference pipeline" in setup or "not found" in setup:
                r.kind = "unexpected"
        elif m is None or mf is None:
            r.kind = "unexpected"
            r.detail = "exit %d without the demo's checksum line" % rc
            return
        else:
            n_same = int(m.group(1))
            n_frames = int(mf.group(1))
            if int(mf.group(2)) != frames:
                r.kind = "unexpected"
                r.detail = "the reference pipeline gave %s frames" % mf.group(2)
                return
            for l in lines:
                fm = re.match(r"\s+first difference at frame (\d+)", l)
                if fm:
                    first_bad = int(fm.group(1))
            completed = error is None
            if error and error.startswith("no EOS"):
                r.kind, r.detail = "hang", "the demo's pipeline stalled: " + error
                return
            if completed:
                r.outcome = "clean" if rc == 0 else "fallback"
        return error, completed, n_frames, n_same, first_bad

    def launch_verdict(self, case, rc, out, out_path, lines, frames, r):
        """gst-launch-1.0's (fault-launch's) output and output file: as
        demo_verdict()."""
        error = None
        completed = False
        n_frames = n_same = 0
        first_bad = None
        for l in lines:
            m = re.match(r"ERROR: (?:from element )?(.*)$", l) or \
                re.match(r"WARNING: (erroneous pipeline: .*)$", l)
            if m and error is None:
                error = m.group(1)
        if error is None and rc == 0 and "Got EOS from element" in out:
            completed = True
        elif error is None and "Failed to set pipeline to" in out:
            r.kind = "no error message"
            r.detail = ("a state change failed, no ERROR message on the "
                        "bus (exit %d)" % rc)
            return
        elif error is None:
            r.kind = "unexpected"
            r.detail = "exit %d with neither EOS nor an ERROR message" % rc
            return
        if case.pipeline == "vk2cuda-nodl":
            # fakesink: nothing to compare
            n_frames = n_same = frames
        else:
            n_frames, n_same, first_bad = self.compare_file(out_path,
                                                            frames)
        if completed:
            # gst-launch's verdict only: cpu-syncs are not visible here
            r.outcome = "clean"
        return error, completed, n_frames, n_same, first_bad

    @staticmethod
    def check_health(case, rc, stats, violations, r):
        """Violations and objects alive at exit, which make any run a
        failure."""
        if violations or any(int(m.group(1)) for m in stats):
            r.kind = "violation"
            r.detail = "; ".join(violations) or "violations counted"
            return
        if not stats:
            r.kind = "unexpected"
            r.detail = "exit %d without the simulator's statistics" % rc
            return
        live = {}
        for m in stats:
            for tok in m.group(2).split():
                k, _, v = tok.partition("=")
                live[k] = live.get(k, 0) + int(v)
        dk = DESTROY_KIND.get(case.entry_base)
        if dk and r.injected and live.get(dk) == 1:
            live[dk] = 0
            r.notes.append("the failed destroy left its %s alive" % dk)
        leaked = ["%s=%d" % (k, v) for k, v in live.items() if v]
        if leaked:
            r.kind = "leak"
            r.detail = ("alive at exit: " + " ".join(leaked) +
                        " (run ended: %s%s)" % (
                            r.outcome, ": " + r.detail if r.detail else ""))

    # ---- driver ----

    def known(self, case, r, table=KNOWN):
        for kid, _, pred in table:
            try:
                if pred(case, r):
                    return kid
            except Exception:
                pass
        return None

    def write_log(self, case, r):
        """Writes the command, environment and output of a failing case."""
        d = self.args.log_dir or self.tmp
        os.makedirs(d, exist_ok=True)
        name = re.sub(r"[^A-Za-z0-9_.-]", "_", "%s-%s%s%s" % (
            case.pipeline, case.fail_spec(), "-slow" if case.slow else "",
            "-rep%d" % case.rep if case.rep else ""))
        path = os.path.join(d, name + ".log")
        argv, extra = self.command(case.pipeline, "OUT.raw", case.frames)
        extra.update(case.env())
        env = ["%s=%s" % (k, self.env[k]) for k in (
            "LD_LIBRARY_PATH", "GST_PLUGIN_PATH", "GST_REGISTRY",
            "GST_REGISTRY_UPDATE", "CUDASIM_STATS", "CUDASIM_VIOLATIONS",
            "CUDASIM_VERBOSE", "GST_DEBUG") if k in self.env]
        env += ["%s=%s" % kv for kv in extra.items()]
        with open(path, "w") as f:
            f.write("# %s: %s: %s\n" % (case.name(), r.kind, r.detail))
            f.write("# reproduce:\n%s \\\n  %s\n\n" % (
                " ".join(env), " ".join("'%s'" % a if "(" in a else a
                                        for a in argv)))
            f.write(r.output)
        return path

    def log(self, msg):
        with self.lock:
            print(msg, flush=True)
