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
    # The digest of the suite snapshot its last grading used (`PinnedSuite.digest` then).
    suite = models.CharField(max_length=64, blank=True, default="")

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


class LtiIdentity(models.Model):
    """The LMS user (`sub` of an LTI launch by `issuer`) a user of the service is: launches and
    the roster sync find them by it, never by a name the LMS sends."""

    user = models.OneToOneField(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="lti")
    issuer = models.CharField(max_length=255)
    subject = models.CharField(max_length=255)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["issuer", "subject"], name="one_user_per_lti_subject")]


class LtiLink(models.Model):
    """A resource link of the LMS that opens an assignment, with the services its last launch
    offered: where its scores go (Assignment and Grade Services) and its roster (Names and Role
    Provisioning)."""

    issuer = models.CharField(max_length=255)
    deployment_id = models.CharField(max_length=255)
    resource_link = models.CharField(max_length=255)
    assignment = models.CharField(max_length=64)
    ags = models.JSONField(null=True, blank=True)  # the launch's endpoint claim
    memberships_url = models.CharField(max_length=2000, blank=True, default="")
    launched_at = models.DateTimeField()

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["issuer", "deployment_id", "resource_link"], name="one_row_per_lti_link"
            )
        ]


class LtiState(models.Model):
    """What the OIDC login step keeps for the launch that follows (its nonce, pylti1p3's state),
    in the database: the launch is a cross-site POST, which carries no session cookie."""

    key = models.CharField(max_length=255, unique=True)
    value = models.JSONField(null=True)
    expires = models.DateTimeField(db_index=True)


class LtiNonce(models.Model):
    """A launch's nonce, once used: the same id_token posted again is refused."""

    nonce = models.CharField(max_length=255, unique=True)
    used_at = models.DateTimeField()


class PinnedSuite(models.Model):
    """The suite an assignment grades with: the snapshot (`snapshots.py`) of its suite as it was
    when the service first served the assignment, until an instructor regrades it onto the suite
    on disk. `suite_file` is the suite's path inside the snapshot."""

    assignment = models.CharField(max_length=64, unique=True)
    digest = models.CharField(max_length=64)
    suite_file = models.CharField(max_length=300)
    pinned_at = models.DateTimeField()


class SuiteChange(models.Model):
    """An instructor regraded an assignment onto another suite: the class's counted scores
    before (`before`: login -> [score, max, final score], taken at `at`) and, once every
    submission made before `at` is graded again, after (`after`, the same shape; None until
    then)."""

    at = models.DateTimeField()
    actor = models.CharField(max_length=150)
    assignment = models.CharField(max_length=64)
    old_digest = models.CharField(max_length=64)
    new_digest = models.CharField(max_length=64)
    queued = models.IntegerField(default=0)
    before = models.JSONField(default=dict)
    after = models.JSONField(null=True, blank=True)

    class Meta:
        indexes = [models.Index(fields=["assignment", "at"])]


class TournamentRun(models.Model):
    """A tournament of an assignment's engines an instructor asked for (`tournament:` in the
    course file): a job of its own (`status` as a submission's; its worker plays the games
    between students' uploads), its entrants (login -> the submission that counted when it was
    asked for) and, once played, tournament.json's data (`results`; every text in it inert)."""

    assignment = models.CharField(max_length=64)
    asked_at = models.DateTimeField()
    asked_by = models.CharField(max_length=150)
    entrants = models.JSONField(default=dict)
    status = models.CharField(max_length=16, choices=STATUSES, default=QUEUED)
    worker = models.CharField(max_length=128, blank=True, default="")
    tries = models.IntegerField(default=0)
    progress = models.CharField(max_length=200, blank=True, default="")
    suite = models.CharField(max_length=64, blank=True, default="")  # the pinned snapshot it used
    results = models.JSONField(null=True, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        indexes = [models.Index(fields=["assignment", "asked_at"]), models.Index(fields=["status"])]
        constraints = [  # two instructors confirming at once queue one tournament
            models.UniqueConstraint(
                fields=["assignment"],
                condition=models.Q(status__in=[QUEUED, RUNNING]),
                name="one_pending_tournament_per_assignment",
            )
        ]
