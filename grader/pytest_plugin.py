"""pytest plugin: collects the visible tests of the YAML suites (see docs/suites.md)."""
