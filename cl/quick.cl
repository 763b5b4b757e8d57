/* quick.cl: the quicksort kernels (not written yet). */
