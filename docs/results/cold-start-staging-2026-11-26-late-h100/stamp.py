#!/usr/bin/env python3
"""stamp.py CMD...: runs CMD, prefixing each line of its stderr with the
milliseconds since CMD started; prints the total last."""
import subprocess, sys, time
t0 = time.monotonic()
p = subprocess.Popen(sys.argv[1:], stderr=subprocess.PIPE, text=True)
for line in p.stderr:
    print(f"{(time.monotonic() - t0) * 1000:8.1f} {line.rstrip()[:160]}")
p.wait()
print(f"{(time.monotonic() - t0) * 1000:8.1f} exit {p.returncode}")
