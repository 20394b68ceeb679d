"""The service's tables (Django models; their migrations in `migrations/`).

A submission row is also its grading job: `status` moves queued -> running -> graded (or error),
`worker` and `heartbeat` say who grades it and that it is still alive, `generation` counts its
gradings (a regrade adds one) and keys its attempt in the gradebook, so a job graded twice after a
crash is stored once.
"""

from __future__ import annotations

from django.conf import settings
from django.db import models

QUEUED, RUNNING, GRADED, ERROR = "queued", "running", "graded", "error"
STATUSES = [(QUEUED, QUEUED), (RUNNING, RUNNING), (GRADED, GRADED), (ERROR, ERROR)]


class Token(models.Model):
    """A person's token, kept as a keyed hash only (the token itself is shown once)."""

    user = models.OneToOneField(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="grader_token"
    )
    digest = models.CharField(max_length=128, unique=True)
    created = models.DateTimeField(auto_now_add=True)


class Extension(models.Model):
    """A per-student due date for one assignment."""

    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE)
    assignment = models.CharField(max_length=64)
    due = models.DateTimeField()

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["user", "assignment"], name="one_extension_per_assignment")
        ]


class Release(models.Model):
    """An instructor released an assignment's hidden results to its students. `released_at` is
    when they asked: it takes effect once the due date and every extension have passed
    (`policy.release_effect`)."""

    assignment = models.CharField(max_length=64, unique=True)
    released_at = models.DateTimeField()
    # When a student first read a hidden test's failure text the release showed (None: nobody
    # yet, so the release may still be undone), and who.
    first_seen_at = models.DateTimeField(null=True, blank=True)
    first_seen_by = models.CharField(max_length=150, blank=True, default="")


class Submission(models.Model):
    id = models.CharField(primary_key=True, max_length=32)
    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE)
    assignment = models.CharField(max_length=64)
    number = models.IntegerField()  # the student's n-th submission to the assignment
    submitted_at = models.DateTimeField()
    blob = models.CharField(max_length=64)  # sha256 of the stored .zip
    files = models.JSONField(default=list)
    status = models.CharField(max_length=16, choices=STATUSES, default=QUEUED)
    generation = models.IntegerField(default=1)
    only_tests = models.JSONField(null=True, blank=True)  # a regrade of these tests only
    worker = models.CharField(max_length=128, blank=True, default="")
    heartbeat = models.DateTimeField(null=True, blank=True)
    tries = models.IntegerField(default=0)
    progress = models.CharField(max_length=200, blank=True, default="")
    late_minutes = models.IntegerField(default=0)
    score = models.FloatField(null=True, blank=True)
    max_score = models.FloatField(null=True, blank=True)
    penalty = models.FloatField(null=True, blank=True)
    final_score = models.FloatField(null=True, blank=True)
    results = models.JSONField(null=True, blank=True)
    attempt = models.IntegerField(null=True, blank=True)  # its attempt in the gradebook
    graded_at = models.DateTimeField(null=True, blank=True)
    # An instructor gave this attempt back (the reason; empty: not given back): it counts neither
    # toward the `attempts:` limit nor as the student's score, and stays visible, marked.
    given_back = models.TextField(blank=True, default="")
    # An instructor chose this submission as the one that counts for its student (the reason;
    # empty: the course's `counts:` rule decides).
    chosen = models.TextField(blank=True, default="")
    # An instructor's manual score (`score`: the final score is `adjusted_points`) or points
    # adjustment (`points`: added to the final score), with its reason; "": none.
    adjusted_kind = models.CharField(max_length=8, blank=True, default="")
    adjusted_points = models.FloatField(null=True, blank=True)
    adjusted_reason = models.TextField(blank=True, default="")

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["user", "assignment", "number"], name="one_number_per_submission")
        ]
        indexes = [
            models.Index(fields=["status", "submitted_at"]),
            models.Index(fields=["assignment", "user"]),
        ]


class AuditEntry(models.Model):
    """One instructor action: who did it, when (UTC), what (the action, its assignment, the
    student and submission concerned, a detail such as a new due date) and why (the reason typed
    in the form, possibly empty)."""

    at = models.DateTimeField()
    actor = models.CharField(max_length=150)  # a login, kept even if the account goes
    action = models.CharField(max_length=32)
    assignment = models.CharField(max_length=64)
    student = models.CharField(max_length=150, blank=True, default="")
    submission = models.CharField(max_length=32, blank=True, default="")
    detail = models.CharField(max_length=200, blank=True, default="")
    reason = models.TextField(blank=True, default="")

    class Meta:
        indexes = [models.Index(fields=["assignment", "at"])]
