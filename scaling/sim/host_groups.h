/* host_groups.h — a simulated host's platform group (supernode, leaf switch), which
 * hier's node is under SMPI (scaling/sim/smpi_hooks.c): from a groups file (platform-gen's
 * PREFIX.groups, named by RS_SMPI_GROUPS), else from the host name.  Plain C, no
 * SimGrid: the SMPI builds link it, and fuzz/fuzz_platform.c runs it on any bytes. */
#ifndef RS_HOST_GROUPS_H
#define RS_HOST_GROUPS_H

/* host's group in file (lines "HOSTNAME GROUP", '#' comments; the first line naming
 * host wins): 0 with *group (-1 if not listed), or -1 (rs_lasterr) if unreadable. */
int host_group_from_file(const char *file, const char *host, long *group);

/* G of the last "-gG-n" in a host name (TaihuLight's tl-g2-n17: 2), or -1. */
long host_group_from_name(const char *host);

#endif
