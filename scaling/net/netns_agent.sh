#!/bin/sh
# netns_agent.sh HOST COMMAND... — Open MPI's launch agent (plm_rsh_agent) for the hosts
# netcluster.sh makes: where ssh would log into HOST, this enters its network namespace.
# HOST is a host's address (10.77.0.K) or name (rsnK).  The command is Open MPI's own
# orted line, which its rsh launcher writes for a remote shell to read: it is handed to
# sh -c as ssh hands it to the login shell, and nothing a user typed is in it.
set -u
[ $# -ge 2 ] || { echo "netns_agent: usage: netns_agent.sh HOST COMMAND..." >&2; exit 2; }
host=$1; shift
case $host in
    10.77.0.[0-9]*) k=${host#10.77.0.} ;;
    rsn[0-9]*) k=${host#rsn} ;;
    *) echo "netns_agent: $host is not a netcluster.sh host (10.77.0.K or rsnK)" >&2; exit 2 ;;
esac
case $k in *[!0-9]*|'') echo "netns_agent: $host is not a netcluster.sh host" >&2; exit 2 ;; esac
exec ip netns exec "rsn$k" sh -c "$*"
