"""A `tessera serve` process for the Python end-to-end tests.

Started on a free loopback port (--port 0, the port read from its "listening on"
line), its stderr gathered by a thread, its /metrics read as numbers, its RSS read
from /proc, and stopped with SIGTERM.
"""
import os
import re
import signal
import subprocess
import threading
import time
import urllib.request


class Server:
    def __init__(self, tessera, args, env=None, timeout=60):
        full_env = dict(os.environ)
        full_env.update(env or {})
        self.proc = subprocess.Popen([tessera, "serve", "--port", "0", *args], stdin=subprocess.DEVNULL,
                                     stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, env=full_env)
        self.lines = []
        self._port = threading.Event()
        self.port = None
        self._reader = threading.Thread(target=self._read_stderr, daemon=True)
        self._reader.start()
        if not self._port.wait(timeout):
            self.proc.kill()
            raise RuntimeError("tessera serve printed no port:\n" + self.stderr())
        self.url = f"http://127.0.0.1:{self.port}"

    def _read_stderr(self):
        for line in self.proc.stderr:
            self.lines.append(line)
            m = re.search(r"listening on http://127\.0\.0\.1:(\d+)", line)
            if m:
                self.port = int(m.group(1))
                self._port.set()
        self._port.set()  # the process ended: stop waiting

    def stderr(self):
        return "".join(self.lines)

    def get(self, path, headers=None):
        request = urllib.request.Request(self.url + path, headers=headers or {})
        with urllib.request.urlopen(request, timeout=30) as reply:
            return reply.read().decode()

    def metrics(self):
        """The samples of /metrics: {'name' or 'name{labels}': value}."""
        samples = {}
        for line in self.get("/metrics").splitlines():
            if line and not line.startswith("#"):
                name, value = line.rsplit(" ", 1)
                samples[name] = float(value)
        return samples

    def wait_metric(self, name, value, timeout=10.0):
        """Polls /metrics until `name` equals `value`; returns the last samples."""
        deadline = time.monotonic() + timeout
        while True:
            samples = self.metrics()
            if samples.get(name) == value or time.monotonic() > deadline:
                return samples
            time.sleep(0.02)

    def rss_kb(self):
        with open(f"/proc/{self.proc.pid}/status") as status:
            for line in status:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1])
        raise RuntimeError("no VmRSS")

    def stop(self):
        """SIGTERM, then the exit code."""
        self.proc.send_signal(signal.SIGTERM)
        code = self.proc.wait(timeout=30)
        self._close()
        return code

    def _close(self):
        self._reader.join(timeout=10)  # it reads to the end of the pipe first
        self.proc.stderr.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()
        if not self.proc.stderr.closed:
            self._close()


def paths():
    """The tessera executable, stories260K and SmolLM2 (None when not fetched), from the
    environment ctest gives the scripts."""
    tessera = os.environ["TESSERA_EXE"]
    testdata = os.environ.get("TESSERA_TESTDATA") or os.environ["TESSERA_TESTDATA_DEFAULT"]
    stories = os.path.join(testdata, "stories260K", "stories260K.gguf")
    smollm2 = os.environ.get("TESSERA_SMOLLM2") or os.path.join(
        os.environ.get("TESSERA_MODEL_CACHE") or os.path.join(os.path.expanduser("~"), ".cache", "tessera"),
        "SmolLM2-135M-Instruct.Q4_1.gguf")
    return tessera, stories, smollm2 if os.path.exists(smollm2) else None
