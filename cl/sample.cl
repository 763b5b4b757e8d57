/* sample.cl: the sample sort kernels (not written yet). */
