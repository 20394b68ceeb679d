"""The judge stage: verdicts, comparison, transcripts, the grading of one submission."""
