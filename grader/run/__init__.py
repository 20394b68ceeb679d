"""The run stage: the fork server and its protocol, the per-test boundary, cgroups, submissions."""
