"""The report stage: terminal, results.json, JUnit, CSV and HTML writers."""
