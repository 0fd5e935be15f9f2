"""Several ``blink serve`` nodes behind HAProxy: its configuration (:mod:`blink.cluster.haproxy`)
and a whole cluster on this machine, for trying it out and for the tests
(:mod:`blink.cluster.local`: a throwaway PostgreSQL, the nodes, HAProxy). The nodes themselves
are ``blink serve --cluster`` (room leases: :mod:`blink.server.lease`). See docs/cluster.md.
"""
