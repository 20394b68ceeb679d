"""The service as a Django application (its models, migrations and templates)."""

from __future__ import annotations

from django.apps import AppConfig


class ServiceConfig(AppConfig):
    name = "grader.service"
    label = "service"
    default_auto_field = "django.db.models.BigAutoField"
