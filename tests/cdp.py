"""A minimal Chrome DevTools Protocol client over ``--remote-debugging-pipe`` (stdlib only), for driving the
replay viewer in headless Chromium from tests: open a page, evaluate JavaScript, read values back."""

from __future__ import annotations

import fcntl
import json
import os
import select
import subprocess
import time


class Browser:
    def __init__(self, binary: str, profile_dir: str) -> None:
        to_child_r, self._w = os.pipe()  # we write commands; Chromium reads fd 3
        self._r, from_child_w = os.pipe()  # Chromium writes fd 4; we read

        def child_fds():  # Chromium's pipe is fd 3 (in) and fd 4 (out); dup2 makes them inheritable
            a = fcntl.fcntl(to_child_r, fcntl.F_DUPFD, 10)
            b = fcntl.fcntl(from_child_w, fcntl.F_DUPFD, 10)
            os.dup2(a, 3)
            os.dup2(b, 4)

        self.proc = subprocess.Popen(
            [binary, "--headless", "--no-sandbox", "--disable-gpu", "--remote-debugging-pipe",
             f"--user-data-dir={profile_dir}", "about:blank"],
            close_fds=False, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
            preexec_fn=child_fds)
        os.close(to_child_r)
        os.close(from_child_w)
        self._buf = b""
        self._id = 0
        self.session = None

    def send(self, method: str, params: dict | None = None, session: bool = True, timeout: float = 30) -> dict:
        self._id += 1
        msg = {"id": self._id, "method": method, "params": params or {}}
        if session and self.session:
            msg["sessionId"] = self.session
        os.write(self._w, json.dumps(msg).encode() + b"\0")
        end = time.monotonic() + timeout
        while True:
            while b"\0" in self._buf:
                raw, self._buf = self._buf.split(b"\0", 1)
                reply = json.loads(raw)
                if reply.get("id") == self._id:
                    if "error" in reply:
                        raise RuntimeError(f"{method}: {reply['error']}")
                    return reply["result"]
            left = end - time.monotonic()
            if left <= 0:
                raise TimeoutError(f"no answer to {method}")
            ready, _, _ = select.select([self._r], [], [], left)
            if ready:
                chunk = os.read(self._r, 1 << 16)
                if not chunk:
                    raise RuntimeError("the browser closed the pipe")
                self._buf += chunk

    def open(self, url: str, ready: str = "document.getElementById('app') !== null") -> None:
        """Open ``url`` in a new tab and wait until it has loaded and ``ready`` (JavaScript) holds (by default:
        the replay viewer's ``#app`` is there)."""
        target = self.send("Target.createTarget", {"url": url}, session=False)["targetId"]
        self.session = self.send("Target.attachToTarget", {"targetId": target, "flatten": True},
                                 session=False)["sessionId"]
        self.wait_for(f"document.readyState === 'complete' && ({ready})")

    def eval(self, expression: str):
        res = self.send("Runtime.evaluate", {"expression": expression, "returnByValue": True})
        if "exceptionDetails" in res:
            raise RuntimeError(f"{expression}: {res['exceptionDetails']}")
        return res["result"].get("value")

    def wait_for(self, expression: str, timeout: float = 20) -> None:
        end = time.monotonic() + timeout
        while not self.eval(expression):
            if time.monotonic() > end:
                raise TimeoutError(expression)
            time.sleep(0.05)

    def close(self) -> None:
        try:
            self.send("Browser.close", session=False, timeout=5)
        except Exception:  # noqa: BLE001 - closing anyway
            pass
        try:
            self.proc.wait(10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait(10)
        os.close(self._w)
        os.close(self._r)
