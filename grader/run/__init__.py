"""The run stage: the fork server, the per-test boundary, cgroups, submissions."""
