/* cmd_devices.c: `clsort devices`: every OpenCL platform and device, with
 * the one libclsort picks by default marked. */
#include "cli.h"

#include <stdio.h>
#include <string.h>

static const char usage[] =
    "usage: clsort devices\n"
    "\n"
    "Lists every OpenCL platform and device as P:D (the --device spelling), with\n"
    "type, compute units, global memory and the largest single allocation.\n"
    "'*' marks the device libclsort uses by default; the last line says why\n"
    "(CLSORT_DEVICE, first GPU, ...).\n";

#define MAX_PLATFORMS 32
#define MAX_DEVICES 64

static const char *type_name(cl_device_type t) {
  if (t & CL_DEVICE_TYPE_GPU) return "GPU";
  if (t & CL_DEVICE_TYPE_CPU) return "CPU";
  if (t & CL_DEVICE_TYPE_ACCELERATOR) return "accelerator";
  return "other";
}

static void text_info(cl_device_id d, cl_device_info what, char *buf, size_t cap) {
  buf[0] = '\0';
  if (clGetDeviceInfo(d, what, cap, buf, NULL) != CL_SUCCESS) snprintf(buf, cap, "?");
  buf[cap - 1] = '\0';
}

int cmd_devices(int argc, char **argv) {
  for (int i = 1; i < argc; i++) {
    if (cli_is_help(argv[i])) {
      fputs(usage, stdout);
      return EXIT_OK;
    }
    return cli_usage_error("devices", "unexpected argument '%s'", argv[i]);
  }
  cl_platform_id platforms[MAX_PLATFORMS];
  cl_uint np = 0;
  cl_int err = clGetPlatformIDs(MAX_PLATFORMS, platforms, &np);
  if (err != CL_SUCCESS || np == 0) {
    fprintf(stderr,
            "clsort devices: no OpenCL platform found (error %d); is an ICD installed in "
            "/etc/OpenCL/vendors, or OCL_ICD_FILENAMES set?\n",
            (int)err);
    return EXIT_FAILED;
  }
  unsigned def_p = 0, def_d = 0;
  const char *reason = NULL;
  clsort_status st = clsort_default_device(&def_p, &def_d, &reason);
  if (st != CLSORT_SUCCESS) reason = NULL;

  unsigned total = 0;
  for (cl_uint p = 0; p < np && p < MAX_PLATFORMS; p++) {
    char pname[256] = "?", pversion[256] = "?";
    clGetPlatformInfo(platforms[p], CL_PLATFORM_NAME, sizeof pname, pname, NULL);
    clGetPlatformInfo(platforms[p], CL_PLATFORM_VERSION, sizeof pversion, pversion, NULL);
    pname[sizeof pname - 1] = pversion[sizeof pversion - 1] = '\0';
    printf("%splatform %u: %s (%s)\n", p ? "\n" : "", p, pname, pversion);
    cl_device_id devices[MAX_DEVICES];
    cl_uint nd = 0;
    err = clGetDeviceIDs(platforms[p], CL_DEVICE_TYPE_ALL, MAX_DEVICES, devices, &nd);
    if (err != CL_SUCCESS) {
      printf("  (no devices: error %d)\n", (int)err);
      continue;
    }
    printf("  %-5s %-11s %4s %10s %10s  %s\n", "P:D", "type", "CUs", "mem MiB", "alloc MiB", "name");
    for (cl_uint d = 0; d < nd && d < MAX_DEVICES; d++) {
      char name[256], index[16];
      cl_device_type type = 0;
      cl_uint units = 0;
      cl_ulong mem = 0, alloc = 0;
      text_info(devices[d], CL_DEVICE_NAME, name, sizeof name);
      clGetDeviceInfo(devices[d], CL_DEVICE_TYPE, sizeof type, &type, NULL);
      clGetDeviceInfo(devices[d], CL_DEVICE_MAX_COMPUTE_UNITS, sizeof units, &units, NULL);
      clGetDeviceInfo(devices[d], CL_DEVICE_GLOBAL_MEM_SIZE, sizeof mem, &mem, NULL);
      clGetDeviceInfo(devices[d], CL_DEVICE_MAX_MEM_ALLOC_SIZE, sizeof alloc, &alloc, NULL);
      int is_default = reason && def_p == p && def_d == d;
      snprintf(index, sizeof index, "%u:%u", p, d);
      printf("%c %-5s %-11s %4u %10.0f %10.0f  %s\n", is_default ? '*' : ' ', index,
             type_name(type), units, (double)mem / 1048576.0, (double)alloc / 1048576.0, name);
      total++;
    }
  }
  if (reason) {
    printf("\n* default device %u:%u: %s\n", def_p, def_d, reason);
  } else {
    printf("\nno default device: %s: %s\n", clsort_status_string(st), clsort_last_error_message());
  }
  return total ? EXIT_OK : EXIT_FAILED;
}
