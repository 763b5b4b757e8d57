#!/bin/bash
# Call 4 (H100 host): the whole quick suite through scripts/device-check at
# the session's last code commit (55fc774), on PoCL 5.0 (16 cores) and the
# H100 at once, each program capped at 380 s and the call at 540 s (the
# longest PoCL 5.0 programs may not finish: suite-cpu.txt says which).
export OCL_ICD_FILENAMES=/usr/lib/libnvidia-opencl.so.1
SKIP_BENCH=1 TEST_SECONDS=380 JOBS=8 OUT=/tmp/dc timeout 530 scripts/device-check build-device \
  --suite quick NVIDIA cpu > /tmp/dc-out.txt 2>&1
echo "device-check rc $?"
cp /tmp/dc/summary*.txt /tmp/dc/suite-*.txt /tmp/dc/devices.txt $OUT/ 2>/dev/null
tar -czf $OUT/check-logs.tgz -C /tmp/dc logs 2>/dev/null
tail -12 /tmp/dc-out.txt
for f in /tmp/dc/suite-*.txt; do echo "$f: $(wc -l < $f) finished"; done
