"""`grader serve`: a course's submission service (Django), its workers, and `grader submit`'s client."""
