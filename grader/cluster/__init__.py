"""Grading away from this process: executors for a batch, exercise bundles that travel."""
