"""The suite stage: the schema, loading a suite file, its cases and recorded expectations."""
