/* widen.cl: the sorts' 8- and 16-bit keys as 32-bit keys and back
 * (src/sorts/widen.c). A key becomes its order key (keys.cl: signed keys
 * with the sign bit flipped, half floats by the float transform, total
 * order), zero-extended: unsigned 32-bit keys whose order is the narrow
 * keys' order and whose low KEY_BITS bits are the narrow order key, so the
 * 32-bit sorts run them unchanged, bit ranges included (the radix sort
 * then needs only the low one or two digits).
 *
 * Needs common.cl and keys.cl before it, with KEY_T uchar or ushort and
 * KEY_BITS 8 or 16; `kind` as keys.cl's key_kind. CHUNK_LOOP over n;
 * work-group WG_SIZE; no local memory. */

/* The narrow keys start keys_at elements into their buffer (a caller's
 * host array used in place from the aligned address before it; see
 * sorts.h's keys_at); the wide ones at 0. */

/* wide[i] = the order key of keys[i] (ascending), zero-extended. */
KERNEL void widen_keys(__global const KEY_T *keys, ulong n, int kind, __global uint *wide,
                       ulong keys_at) {
  keys += keys_at;
  CHUNK_LOOP(i, n) wide[i] = key_to_bits(keys[i], kind, 0);
}

/* keys[i] = the key whose order key is the low KEY_BITS of wide[i]. */
KERNEL void narrow_keys(__global const uint *wide, ulong n, int kind, __global KEY_T *keys,
                        ulong keys_at) {
  keys += keys_at;
  CHUNK_LOOP(i, n)
    keys[i] = bits_to_key((KEY_T)wide[i], kind, 0);
}
