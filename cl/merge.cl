/* merge.cl: the merge sort kernels (not written yet). */
