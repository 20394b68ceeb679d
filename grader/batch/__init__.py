"""Grading a class: finding its submissions, checking before grading, knowing what changed."""
