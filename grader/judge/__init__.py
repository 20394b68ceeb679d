"""The judge stage: limits resolved, tests run (one TestRun each) and judged, verdicts, results."""
