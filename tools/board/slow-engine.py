#!/usr/bin/env python3
"""The engine as a stalled machine shows it to the page: every `position`
line reaches the engine SLOW_ENGINE_MS late (default 300 ms).

The browser test run through it (E2E_ENGINE=tools/board/slow-engine.py)
must pass as it does against the plain engine: a page that acts on a state
it has not yet reached fails here every time, where a busy CI machine
fails it now and then. The engine is MENAGERIE_BIN/menagerie
(default target/release)."""
import os
import subprocess
import sys
import threading
import time

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
REAL = os.path.join(os.environ.get("MENAGERIE_BIN", os.path.join(ROOT, "target", "release")), "menagerie")
DELAY = int(os.environ.get("SLOW_ENGINE_MS", "300")) / 1000

engine = subprocess.Popen([REAL] + sys.argv[1:], stdin=subprocess.PIPE, bufsize=0)
# The engine's end is this program's: `quit` ends both at once.
threading.Thread(target=lambda: os._exit(engine.wait()), daemon=True).start()
for line in sys.stdin.buffer:
    if line.startswith(b"position"):
        time.sleep(DELAY)
    try:
        engine.stdin.write(line)
    except BrokenPipeError:
        break
engine.stdin.close()
sys.exit(engine.wait())
