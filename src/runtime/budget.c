/* budget.c: the device memory limit: what CLSORT_DEVICE_MEMORY_LIMIT and
 * clsort_context_set_memory_limit set, and what a call may plan with.
 * alloc.c enforces it, counting every live buffer of the context. */
#include "runtime/runtime.h"

#include <ctype.h>
#include <math.h> /* isfinite, a macro */
#include <stdlib.h>
#include <string.h>

bool clsort__parse_bytes(const char *text, size_t *out) {
  if (!text || !isdigit((unsigned char)text[0])) return false;
  char *end;
  double value = strtod(text, &end);
  double unit = 1;
  switch (toupper((unsigned char)*end)) {
    case 'K': unit = 1024.0; end++; break;
    case 'M': unit = 1048576.0; end++; break;
    case 'G': unit = 1073741824.0; end++; break;
    case 'T': unit = 1099511627776.0; end++; break;
    default: break;
  }
  /* An optional "B" or "iB" after a unit ("64KiB", "1GB"), nothing else. */
  if (unit > 1 && (end[0] == 'i' || end[0] == 'I') && toupper((unsigned char)end[1]) == 'B')
    end += 2;
  else if (toupper((unsigned char)*end) == 'B')
    end++;
  if (*end != '\0' || !isfinite(value)) return false;
  double bytes = value * unit;
  if (bytes >= 18446744073709551616.0 || bytes >= (double)SIZE_MAX) return false;
  *out = (size_t)bytes;
  return true;
}

clsort_status clsort__memory_limit_from_env(clsort_context *ctx) {
  const char *text = getenv("CLSORT_DEVICE_MEMORY_LIMIT");
  ctx->memory_limit = 0;
  if (!text || !*text) return CLSORT_SUCCESS;
  size_t bytes;
  RETURN_IF(!clsort__parse_bytes(text, &bytes), CLSORT_ERROR_INVALID_ARGUMENT,
            "CLSORT_DEVICE_MEMORY_LIMIT='%s' is not a byte count (such as 1073741824, 512M or "
            "1.5G)",
            text);
  ctx->memory_limit = bytes;
  clsort__debug("device memory limit %zu bytes (CLSORT_DEVICE_MEMORY_LIMIT)", bytes);
  return CLSORT_SUCCESS;
}

size_t clsort__budget_total(const clsort_context *ctx) {
  if (ctx->memory_limit) return ctx->memory_limit;
  /* The driver, other programs and the caller's own buffers share the
   * device: plan with most of it, not all. */
  cl_ulong total = ctx->global_mem - ctx->global_mem / 16;
  return total > SIZE_MAX ? SIZE_MAX : (size_t)total;
}

void clsort__scratch_new_epoch(clsort_context *ctx) { ctx->epoch++; }

clsort_status clsort__set_memory_limit(clsort_context *ctx, size_t bytes) {
  RETURN_IF(!ctx, CLSORT_ERROR_INVALID_ARGUMENT, "the context is NULL");
  ctx->memory_limit = bytes;
  /* Under the lock no call is running: all scratch is idle. */
  clsort__scratch_new_epoch(ctx);
  if (bytes && ctx->device_bytes > bytes) clsort__budget_make_room(ctx, 0);
  return CLSORT_SUCCESS;
}

size_t clsort_context_memory_limit(const clsort_context *ctx) {
  return ctx ? ctx->memory_limit : 0;
}

size_t clsort_context_memory_used(const clsort_context *ctx) {
  return ctx ? ctx->device_bytes : 0;
}
