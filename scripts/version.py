#!/usr/bin/env python3
"""Prints MAJOR.MINOR.PATCH from include/clsort.h, where the version is defined once."""
import re, sys
text = open(sys.argv[1]).read()
parts = [re.search(r'#define CLSORT_VERSION_%s (\d+)' % k, text).group(1) for k in ('MAJOR', 'MINOR', 'PATCH')]
print('.'.join(parts))
