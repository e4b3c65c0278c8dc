/* SPDX-License-Identifier: MIT */
/*
 * gh_device: device discovery report (name, SMs, memory, PCIe link, peers,
 * driver and runtime versions). The PCIe generation and width come from
 * sysfs (/sys/bus/pci/devices/BUSID/current_link_{speed,width}); the CUDA
 * runtime does not report them. Nothing is printed or written when no
 * device is usable: the caller gets GC_ERR_NODEV and one line in `why`.
 */
#ifndef GH_DEVICE_H
#define GH_DEVICE_H

#include "gh_cuda.h"

/* PCIe generation from a sysfs link speed ("16.0 GT/s PCIe" -> 4); 0 if unknown. */
int gh_device_pcie_gen(const char *speed);
/* Reads generation and width of the device's PCIe link; 0 when unknown. */
void gh_device_pcie_link(const char *pci_bus_id, int *gen, int *width);
/* One-line description for provenance: "NVIDIA H200 (sm_90, 132 SMs, 141 GB, driver 12.4)". */
void gh_device_describe(const gh_dev_info *d, char *buf, size_t n);
/* Appends the full report of every device to out (a GString *). */
gc_status gh_device_report(void *gstring_out, char *why);

#endif
