"""Start a real kytosd on a free loopback port for end-to-end tests.

Everything stays on 127.0.0.1; every wait is bounded."""
import http.client
import json
import os
import shutil
import signal
import subprocess
import tempfile
import time

BUILD = os.environ.get("top_builddir", os.getcwd())
KYTOSD = os.path.join(BUILD, "host", "kytosd")
NAPP_LIBS = os.path.join(BUILD, "plugins", ".libs")
TEST_LIBS = os.path.join(BUILD, "tests", "napps", ".libs")


class Kytosd:
    def __init__(self, napps=(), settings=None, reuse=None, conf=None):
        """reuse: an earlier (stopped) Kytosd whose directories to run on again."""
        self.dir = reuse.dir if reuse else tempfile.mkdtemp(prefix="kytos-e2e-")
        self.napps = os.path.join(self.dir, "napps")
        if not reuse:
            os.mkdir(self.napps)
        for so in napps:
            self.drop(so)
        self.port_file = os.path.join(self.dir, "port")
        args = [KYTOSD, "-f", "--listen", "127.0.0.1", "--api-port", "0", "--port", "0",
                "--napps", self.napps, "--data-dir", os.path.join(self.dir, "data"),
                "--port-file", self.port_file, "--set", "log_level=\"WARNING\""]
        if conf:
            path = os.path.join(self.dir, "kytos.conf")
            with open(path, "w") as f:
                f.write(conf)
            args += ["-c", path]
        settings = dict(settings or {})
        # No shedding of requests queued past api_queue_target_ms unless a
        # test asks for it: on a busy machine, or under ThreadSanitizer, a
        # test's own request queued more than the default 100 ms made the
        # next ones 503 (a status poll, an enable) and the test failed on
        # what it did not test.
        if "api_queue_target_ms" not in (conf or ""):
            settings.setdefault("api_queue_target_ms", 0)
        for k, v in settings.items():
            args += ["--set", "%s=%s" % (k, json.dumps(v))]
        if os.path.exists(self.port_file):
            os.unlink(self.port_file)
        self.log = open(os.path.join(self.dir, "kytosd.log"), "a")
        self.proc = subprocess.Popen(args, stdout=self.log, stderr=subprocess.STDOUT)
        deadline = time.time() + 20
        while time.time() < deadline:
            if os.path.exists(self.port_file) and open(self.port_file).read().strip():
                self.port = int(open(self.port_file).read())
                return
            if self.proc.poll() is not None:
                break
            time.sleep(0.02)
        raise RuntimeError("kytosd did not start: " + self.logtext())

    def path_of(self, so):
        for d in (NAPP_LIBS, TEST_LIBS):
            p = os.path.join(d, so)
            if os.path.exists(p):
                return p
        raise FileNotFoundError(so)

    def drop(self, so, name=None, data=None):
        """Install a NApp the way an operator does: write elsewhere, rename in."""
        dst = os.path.join(self.napps, name or so)
        tmp = dst + ".part"
        if data is None:
            shutil.copyfile(self.path_of(so), tmp)
        else:
            with open(tmp, "wb") as f:
                f.write(data)
        os.rename(tmp, dst)

    def remove(self, name):
        os.unlink(os.path.join(self.napps, name))

    def conn(self, timeout=10):
        return http.client.HTTPConnection("127.0.0.1", self.port, timeout=timeout)

    def request(self, method, path, body=None, headers=None, timeout=10):
        c = self.conn(timeout)
        hdrs = dict(headers or {})
        if body is not None and not isinstance(body, (bytes, str)):
            body = json.dumps(body)
            hdrs.setdefault("Content-Type", "application/json")
        c.request(method, path, body=body, headers=hdrs)
        r = c.getresponse()
        data = r.read()
        c.close()
        try:
            js = json.loads(data) if data else None
        except ValueError:
            js = None
        return r.status, dict(r.getheaders()), js, data

    def wait_for(self, cond, timeout=5.0):
        deadline = time.time() + timeout
        while time.time() < deadline:
            if cond():
                return True
            time.sleep(0.02)
        return cond()

    def logtext(self):
        if not self.log.closed:
            self.log.flush()
        try:
            return open(os.path.join(self.dir, "kytosd.log")).read()[-4000:]
        except OSError:
            return ""

    def stop(self, sig=signal.SIGTERM, timeout=20):
        if self.proc.poll() is None:
            self.proc.send_signal(sig)
            try:
                self.proc.wait(timeout)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        self.log.close()
        return self.proc.returncode

    def cleanup(self):
        self.collect_sanitizer_reports()
        shutil.rmtree(self.dir, ignore_errors=True)

    def collect_sanitizer_reports(self):
        """A sanitizer build's kytosd reports to its log, which goes with the
        temporary directory: keep any report for Tap.done to fail on."""
        if not self.log.closed:
            self.log.flush()
        try:
            text = open(os.path.join(self.dir, "kytosd.log"), errors="replace").read()
        except OSError:
            return
        for mark in SANITIZER_MARKS:
            i = text.find(mark)
            if i >= 0:
                SANITIZER_REPORTS.append(text[max(0, i - 200):i + 6000])
                return


# What a sanitizer prints when it reports (ThreadSanitizer, AddressSanitizer,
# LeakSanitizer, UndefinedBehaviorSanitizer).
SANITIZER_MARKS = ("WARNING: ThreadSanitizer", "ERROR: ThreadSanitizer", "ERROR: AddressSanitizer",
                   "ERROR: LeakSanitizer", "runtime error:")
SANITIZER_REPORTS = []


class Tap:
    def __init__(self):
        self.n = 0
        self.failed = 0

    def ok(self, cond, name, detail=""):
        self.n += 1
        if cond:
            print("ok %d - %s" % (self.n, name))
        else:
            self.failed += 1
            print("not ok %d - %s" % (self.n, name))
            for line in str(detail).splitlines()[-30:]:
                print("#   " + line)
        return cond

    def done(self):
        if SANITIZER_REPORTS:
            for line in "\n\n".join(SANITIZER_REPORTS).splitlines():
                print("# " + line)
            self.ok(False, "kytosd ran without sanitizer reports (above)")
        print("1..%d" % self.n)
        return 1 if self.failed else 0
